import Crypto
import CryptoExtras
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How a compact JWS is signed: as Apple signs, or in one of the ways a forger would, so a backend
/// can be shown to reject each.
enum JWSSigning: Sendable {
    /// Apple's: `{"kid":…,"alg":"RS256"}` and a valid RS256 signature.
    case apple(SigningKey)
    /// RS256 with a header that names no `kid`.
    case withoutKid(SigningKey)
    /// Apple's header; the signature's bytes altered.
    case badSignature(SigningKey)
    /// `{"kid":…,"alg":"none"}` and an empty signature.
    case none(kid: String)
    /// `{"kid":…,"alg":"HS256"}`, an HMAC whose secret is the RSA key as PEM text
    /// (algorithm confusion: a library that takes `alg` from the token verifies it with the key).
    case hs256WithPublicKey(SigningKey)

    /// The compact JWS of `payload`.
    func compact(_ payload: Data) throws -> String {
        switch self {
        case .apple(let key):
            return try key.sign(payload: payload)
        case .withoutKid(let key):
            return try key.sign(payload: payload, header: Data(#"{"alg":"RS256"}"#.utf8).base64URLEncoded + ".")
        case .badSignature(let key):
            return try key.sign(payload: payload, alteringSignature: true)
        case .none(let kid):
            return Data(#"{"kid":"\#(kid)","alg":"none"}"#.utf8).base64URLEncoded + "." + payload.base64URLEncoded + "."
        case .hs256WithPublicKey(let key):
            let input =
                Data(#"{"kid":"\#(key.kid)","alg":"HS256"}"#.utf8).base64URLEncoded + "." + payload.base64URLEncoded
            let secret = SymmetricKey(data: Data(Self.publicKeyPEM(key).utf8))
            let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: secret)
            return input + "." + Data(mac).base64URLEncoded
        }
    }

    /// The half of `key` as a PEM file holds it (SPKI, with a final newline): the secret a
    /// confused verifier uses.
    static func publicKeyPEM(_ key: SigningKey) -> String {
        key.privateKey.publicKey.pemRepresentation + "\n"
    }
}

/// A key that is in no JWKS, made once per process, to sign tokens whose `kid` no backend can find.
enum StrangerKey {
    private static let made = Mutex<SigningKey?>(nil)

    /// The key (made on first use: an RSA-2048 key takes a moment).
    static func key() throws -> SigningKey {
        if let key = made.withLock({ $0 }) { return key }
        let generated = try GeneratedKey.generate()
        let key = try SigningKey(kid: generated.kid, pem: generated.key.pem)
        return made.withLock { made in
            if let earlier = made { return earlier }
            made = key
            return key
        }
    }
}
