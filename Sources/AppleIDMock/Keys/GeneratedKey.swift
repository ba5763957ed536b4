import Crypto
import CryptoExtras
import Foundation

/// A signing key made by a rotation: its private half as PKCS#8 PEM, kept in the store so every
/// replica (and a restart on a durable store) signs and publishes the same key.
struct GeneratedKey: Codable, Sendable {
    var pem: String

    /// A new RSA-2048 key with a fresh 10-character `kid` in Apple's style.
    static func make() throws -> (kid: String, key: GeneratedKey) {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        let kid = String((0..<10).map { _ in alphabet.randomElement(using: &generator)! })
        return (kid, GeneratedKey(pem: key.pemRepresentation))
    }
}
