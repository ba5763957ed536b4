import Crypto
import CryptoExtras

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The ways a conformance case signs its token beyond `JWSSigning`'s: any header, the published
/// key under other algorithms, HMAC keyed with the public key as each library holds it, and no
/// signature at all. Pure: each call returns the compact JWS.
enum ConformanceSigning {
    /// How the HMAC secret of `alg-hs256-pubkey` is written: the forms a confused verifier passes
    /// the public key in.
    enum PublicKeyForm: String, CaseIterable, Sendable {
        /// SPKI PEM with its final newline (what a `.pem` file and most JWK-to-PEM helpers give).
        case spkiPEM = "spki-pem"
        /// PKCS#1 PEM (`BEGIN RSA PUBLIC KEY`).
        case pkcs1PEM = "pkcs1-pem"
        /// The DER bytes of the SPKI.
        case der
    }

    /// The JSON text of a header: `alg`, then `kid` if any, then `extra` in name order.
    static func header(alg: String, kid: String?, extra: [String: JSONValue] = [:]) -> Data {
        var members: [(String, JSONValue)] = [("alg", .string(alg))]
        if let kid { members.append(("kid", .string(kid))) }
        members += extra.sorted { $0.key < $1.key }
        let text = members.map { json(.string($0.0)) + ":" + json($0.1) }.joined(separator: ",")
        return Data("{\(text)}".utf8)
    }

    /// The JSON text of `value`.
    private static func json(_ value: JSONValue) -> String {
        (try? TokenMinter.encode(value)).flatMap { String(data: $0, encoding: .utf8) } ?? "null"
    }

    /// `header.payload` signed RS256 by `key`.
    static func rs256(_ payload: Data, key: SigningKey, header: Data) throws -> String {
        try key.sign(payload: payload, header: header.base64URLEncoded + ".")
    }

    /// `header.payload` signed by `key` under `alg`: `PS256` or `RS512`.
    static func otherAsymmetric(_ payload: Data, key: SigningKey, alg: String) throws -> String {
        let input = header(alg: alg, kid: key.kid).base64URLEncoded + "." + payload.base64URLEncoded
        let signature: _RSA.Signing.RSASignature
        switch alg {
        case "PS256": signature = try key.privateKey.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .PSS)
        default:
            signature = try key.privateKey.signature(
                for: SHA512.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
        }
        return input + "." + signature.rawRepresentation.base64URLEncoded
    }

    /// HS256 keyed with `key`'s public half written as `form`, under `key`'s `kid`.
    static func hs256(_ payload: Data, publicKeyOf key: SigningKey, as form: PublicKeyForm) -> String {
        let input = header(alg: "HS256", kid: key.kid).base64URLEncoded + "." + payload.base64URLEncoded
        let publicKey = key.privateKey.publicKey
        let secret: Data =
            switch form {
            case .spkiPEM: Data(JWSSigning.publicKeyPEM(key).utf8)
            case .pkcs1PEM: Data(pem("RSA PUBLIC KEY", publicKey.pkcs1DERRepresentation).utf8)
            case .der: publicKey.derRepresentation
            }
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: secret))
        return input + "." + Data(mac).base64URLEncoded
    }

    /// `header.payload.` with no signature, under `alg`.
    static func unsigned(_ payload: Data, alg: String, kid: String?) -> String {
        header(alg: alg, kid: kid).base64URLEncoded + "." + payload.base64URLEncoded + "."
    }

    /// `der` as PEM text under `label`, 64 characters a line, with a final newline.
    private static func pem(_ label: String, _ der: Data) -> String {
        let base64 = der.base64EncodedString()
        var lines: [Substring] = []
        var rest = Substring(base64)
        while !rest.isEmpty {
            lines.append(rest.prefix(64))
            rest = rest.dropFirst(64)
        }
        return "-----BEGIN \(label)-----\n" + lines.joined(separator: "\n") + "\n-----END \(label)-----\n"
    }
}
