import Crypto
import SwiftASN1
import Synchronization
import X509

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The attacker's key (`StrangerKey`, in no JWKS) as `key-header-injection` names it in a token's
/// header: a JWKS holding it (`jku`), and its self-signed X.509 certificate, inline as base64 DER
/// (`x5c`) or as PEM at a URL (`x5u`, RFC 7515 §4.1.5). Made once per process, like the key.
enum AttackerMaterial {
    /// The certificate, made for the key of that `kid`.
    private static let made = Mutex<(kid: String, der: [UInt8])?>(nil)

    /// The JWKS of the attacker's key (`{"keys": [jwk]}`).
    static func jwks() throws -> [UInt8] {
        Array(#"{"keys":["#.utf8) + (try StrangerKey.key()).encodedJWK + Array("]}".utf8)
    }

    /// The self-signed certificate of the attacker's key, DER-encoded.
    static func certificateDER() throws -> [UInt8] {
        let key = try StrangerKey.key()
        if let made = made.withLock({ $0 }), made.kid == key.kid { return made.der }
        let der = try certificate(for: key)
        made.withLock { $0 = (key.kid, der) }
        return der
    }

    /// The same certificate as PEM (`-----BEGIN CERTIFICATE-----`), with a final newline.
    static func certificatePEM() throws -> String {
        PEMDocument(type: "CERTIFICATE", derBytes: try certificateDER()).pemString + "\n"
    }

    /// `key`'s certificate, issued by itself to "apple-id-mock conformance attacker", valid from
    /// 2024 to 2049 (fixed dates: no clock is read, and any day a run happens falls inside).
    private static func certificate(for key: SigningKey) throws -> [UInt8] {
        let name = try DistinguishedName {
            CommonName("apple-id-mock conformance attacker")
            OrganizationName("not Apple")
        }
        let privateKey = Certificate.PrivateKey(key.privateKey)
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(bytes: Array(SHA256.hash(data: Data(key.kid.utf8)).prefix(16))),
            publicKey: privateKey.publicKey,
            notValidBefore: Date(timeIntervalSince1970: 1_704_067_200),
            notValidAfter: Date(timeIntervalSince1970: 2_524_607_999), issuer: name, subject: name,
            signatureAlgorithm: .sha256WithRSAEncryption, extensions: Certificate.Extensions(),
            issuerPrivateKey: privateKey)
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}
