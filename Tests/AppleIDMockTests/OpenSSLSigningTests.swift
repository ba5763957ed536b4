import Crypto
import CryptoExtras
import Foundation
import JWTKit
import NIOCore
import Testing

@testable import AppleIDMock

/// RS256 by the system's OpenSSL: PKCS#1 v1.5 signatures are deterministic, so OpenSSL's must be
/// byte for byte swift-crypto's for the same key and input, and tokens it signs verify as Apple's.
@Suite("OpenSSL signing")
struct OpenSSLSigningTests {
    private static func messages() -> [Data] {
        var generator = SystemRandomNumberGenerator()
        return [Data(), Data("eyJraWQiOiJNazdwUTJ4UjlhIiwiYWxnIjoiUlMyNTYifQ.e30".utf8)]
            + (0..<20).map { index in
                Data((0..<(index * 97 % 2_000)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            }
    }

    @Test("OpenSSL and swift-crypto give byte-identical signatures, for the bundled keys and a generated one")
    func identicalSignatures() throws {
        var keys = try SigningKeyRing.load(keysDirectory: Fixture.keysDirectory).keys
        let generated = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        keys.append(try SigningKey(kid: "generated", pem: generated.pemRepresentation))
        #expect(keys.count == 4)
        for key in keys {
            #expect(key.signer.signatureSize == 256)
            for message in Self.messages() {
                let byOpenSSL = try key.signer.sign(message)
                let bySwiftCrypto = try key.privateKey.signature(for: message, padding: .insecurePKCS1v1_5)
                #expect(byOpenSSL == Array(bySwiftCrypto.rawRepresentation), "kid \(key.kid), \(message.count) bytes")
            }
        }
    }

    @Test("many signers at once share the lanes and all sign correctly")
    func concurrentSigning() async throws {
        let key = try #require(try SigningKeyRing.load(keysDirectory: Fixture.keysDirectory).keys.first)
        let expected = try key.privateKey.signature(for: Data("same input".utf8), padding: .insecurePKCS1v1_5)
        let results = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<64 { group.addTask { try key.signer.sign(Data("same input".utf8)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0 == Array(expected.rawRepresentation) })
    }

    @Test("a token signed through OpenSSL verifies with jwt-kit against the published JWK")
    func verifiesAsApple() async throws {
        let key = try #require(try SigningKeyRing.load(keysDirectory: Fixture.keysDirectory).keys.last)
        let token = try key.sign(payload: Data(#"{"iss":"https://appleid.apple.com","sub":"x"}"#.utf8))
        let keys = JWTKeyCollection()
        try await keys.add(
            jwk: JWK.rsa(.rs256, identifier: JWKIdentifier(string: key.kid), modulus: key.jwk.n, exponent: key.jwk.e))
        /// The two claims of the test token.
        struct Claims: JWTPayload {
            var iss: String
            var sub: String
            func verify(using algorithm: some JWTAlgorithm) async throws {}
        }
        let claims = try await keys.verify(token, as: Claims.self)
        #expect(claims.sub == "x")
    }

    @Test("a key that is not an RSA private key in PEM is refused with a reason")
    func refusesBadKeys() throws {
        #expect(throws: OpenSSLRSASigner.Failure.self) { try OpenSSLRSASigner(pem: "not a key") }
        let ec = P256.Signing.PrivateKey().pemRepresentation
        let failure = #expect(throws: OpenSSLRSASigner.Failure.self) { try OpenSSLRSASigner(pem: ec) }
        #expect(failure?.description == "not an RSA key")
    }
}

/// The JWKS body assembled from keys encoded once is what encoding the whole set gives.
@Suite("JWKS body")
struct JWKSBodyTests {
    @Test("byte for byte JSONEncoder's output in roster order; shuffled, the same keys")
    func sameBytes() throws {
        let ring = try SigningKeyRing.load(keysDirectory: Fixture.keysDirectory)
        let keys = ResolvedKeys.bundled(
            ring, roster: KeyRoster.bundled(ring, settings: try Fixture.defaultWorld().settings))
        let now = Fixture.start
        /// The set as JSONEncoder writes it.
        struct JWKSet: Encodable { var keys: [PublicJWK] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        let expected = try encoder.encode(JWKSet(keys: keys.published(at: now)))
        #expect(Data(buffer: keys.jwksBody(at: now, shuffled: false)) == expected)
        let shuffled = try JSONSerialization.jsonObject(with: Data(buffer: keys.jwksBody(at: now, shuffled: true)))
        let kids = ((shuffled as? [String: Any])?["keys"] as? [[String: Any]])?.compactMap { $0["kid"] as? String }
        #expect(Set(kids ?? []) == Set(keys.published(at: now).map(\.kid)))
    }
}
