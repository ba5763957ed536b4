import Crypto
import CryptoExtras
import Foundation

/// One RS256 key that signs id_tokens and notifications, with its public JWK.
final class SigningKey: Sendable {
    /// The `kid` (the PEM file's name).
    let kid: String
    /// The private half (swift-crypto's: its key, and signatures made on purpose the slow way).
    let privateKey: _RSA.Signing.PrivateKey
    /// The same key in OpenSSL, which makes every signature of tokens and notifications.
    let signer: OpenSSLRSASigner
    /// The half as it appears in `/auth/keys`.
    let jwk: PublicJWK
    /// Apple's JWS header for this key, base64url-encoded, followed by the `.`.
    let encodedHeader: String
    /// `jwk` as Apple's JSON (sorted keys), encoded once for the JWKS.
    let encodedJWK: [UInt8]

    /// Parses a PEM private key and derives its JWK.
    init(kid: String, pem: String) throws {
        let key = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
        let primitives = try key.publicKey.getKeyPrimitives()
        self.kid = kid
        self.privateKey = key
        self.signer = try OpenSSLRSASigner(pem: pem)
        self.jwk = PublicJWK(
            kty: "RSA", kid: kid, use: "sig", alg: "RS256",
            n: primitives.modulus.base64URLEncoded, e: primitives.publicExponent.base64URLEncoded)
        self.encodedHeader = Data(#"{"kid":"\#(kid)","alg":"RS256"}"#.utf8).base64URLEncoded + "."
        self.encodedJWK = Array(try TokenMinter.encode(jwk))
    }

    /// The same key pair under another `kid` (a bundled key as a namespace publishes it), sharing
    /// the parsed private half and its signer.
    init(aliasing key: SigningKey, kid: String) throws {
        self.kid = kid
        self.privateKey = key.privateKey
        self.signer = key.signer
        self.jwk = PublicJWK(kty: key.jwk.kty, kid: kid, use: key.jwk.use, alg: key.jwk.alg, n: key.jwk.n, e: key.jwk.e)
        self.encodedHeader = Data(#"{"kid":"\#(kid)","alg":"RS256"}"#.utf8).base64URLEncoded + "."
        self.encodedJWK = Array(try TokenMinter.encode(jwk))
    }
}

/// An entry of Apple's JWKS: the five fields Apple publishes plus `use`.
struct PublicJWK: Sendable, Codable, Equatable {
    let kty: String
    let kid: String
    let use: String
    let alg: String
    let n: String
    let e: String
}

/// The RS256 keys loaded from `keys/signing/*.pem` (PKCS#1 or PKCS#8, 2048 bits or more), by `kid`.
struct SigningKeyRing: Sendable {
    /// All keys, sorted by `kid`.
    let keys: [SigningKey]

    /// Loads `<keysDirectory>/signing/*.pem`; the file name (without `.pem`) is the `kid`.
    static func load(keysDirectory: String) throws(ScenarioError) -> SigningKeyRing {
        let directory = (keysDirectory as NSString).appendingPathComponent("signing")
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".pem") }
                .sorted()
        } catch {
            throw ScenarioError(
                file: directory, reason: "cannot read the signing keys directory: \(error.localizedDescription)")
        }
        guard !files.isEmpty else {
            throw ScenarioError(file: directory, reason: "no RS256 signing keys (*.pem) in this directory")
        }
        var keys: [SigningKey] = []
        for file in files {
            let path = (directory as NSString).appendingPathComponent(file)
            let kid = (file as NSString).deletingPathExtension
            guard let data = FileManager.default.contents(atPath: path), let pem = String(data: data, encoding: .utf8)
            else {
                throw ScenarioError(file: path, reason: "cannot read the key file")
            }
            do {
                keys.append(try SigningKey(kid: kid, pem: pem))
            } catch {
                throw ScenarioError(file: path, reason: "not an RSA private key of 2048 bits or more in PEM: \(error)")
            }
        }
        return SigningKeyRing(keys: keys)
    }

    /// The key with `kid`, if loaded.
    func key(_ kid: String) -> SigningKey? {
        keys.first { $0.kid == kid }
    }
}

extension SigningKey {
    /// Signs `payload` as a compact JWS with Apple's header, `{"kid":"…","alg":"RS256"}` (no `typ`),
    /// or with `header` (already base64url, with its final "."); `alteringSignature` flips a bit of
    /// the signature, for a forged token.
    func sign(payload: Data, header: String? = nil, alteringSignature: Bool = false) throws -> String {
        let signingInput = (header ?? encodedHeader) + payload.base64URLEncoded
        var signature = try signer.sign(Data(signingInput.utf8))
        if alteringSignature, !signature.isEmpty { signature[signature.count / 2] ^= 0x01 }
        return signingInput + "." + Data(signature).base64URLEncoded
    }
}
