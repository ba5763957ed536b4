import Crypto
import CryptoExtras
import NIOPosix

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A signing key made by a rotation: its private half as PKCS#8 PEM, kept in the store so every
/// replica (and a restart on a durable store) signs and publishes the same key.
struct GeneratedKey: Codable, Sendable {
    var pem: String

    /// A new RSA-2048 key with a fresh 10-character `kid` in Apple's style, made on NIO's thread pool:
    /// generating it takes tens of milliseconds to seconds of CPU, and the caller (a request handler)
    /// runs on its connection's event loop, which must not stall.
    static func make() async throws -> (kid: String, key: GeneratedKey) {
        try await NIOThreadPool.singleton.runIfActive { try generate() }
    }

    /// A new key, made on the calling thread (`StrangerKey`, once per process).
    static func generate() throws -> (kid: String, key: GeneratedKey) {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        let kid = String((0..<10).map { _ in alphabet.randomElement(using: &generator)! })
        return (kid, GeneratedKey(pem: key.pemRepresentation))
    }
}
