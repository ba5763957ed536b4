import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Makes the token of a conformance case from the claims Apple would issue: the claims changed and
/// the token signed as the case says. Pure: the same inputs give the same token (up to the RSA-PSS
/// salt), and nothing is stored.
enum ConformanceTokens {
    /// The keys a run signs with.
    struct Keys: Sendable {
        /// The run's signing key (published).
        var signing: SigningKey
        /// Every key the run's namespace publishes, the signing key included.
        var published: [SigningKey]
        /// A key in no JWKS: the attacker's.
        var stranger: SigningKey
        /// The key rotated into the run's JWKS for `ok-rotated-key`, once it is.
        var rotated: SigningKey?
        /// How `key-header-injection` names `stranger` in a header.
        var attacker: Attacker
    }

    /// The attacker's key as a token's header may name it: its JWKS's URL (`jku`), its
    /// certificate's URL (`x5u`, PEM) and the certificate itself (`x5c`, DER).
    struct Attacker: Sendable {
        var jwksURL: String
        var certificateURL: String
        var certificateDER: [UInt8]

        /// The material served under `baseURL` (the mock as the backend reaches it).
        init(baseURL: String) throws {
            var base = Substring(baseURL)
            while base.hasSuffix("/") { base = base.dropLast() }
            jwksURL = base + AttackerPath.jwks
            certificateURL = base + AttackerPath.certificate
            certificateDER = try AttackerMaterial.certificateDER()
        }
    }

    /// What else a case's token depends on.
    struct Context: Sendable {
        var now: Int
        var lifetime: Int
        /// A client id of the world that the backend does not accept: a sibling app.
        var siblingClient: String
        /// The raw nonce the app posts, and how the token carries it.
        var rawNonce: String?
        var nonceScheme: ConformanceConfig.NonceScheme
    }

    /// The variant of `jws-malformed` the calibration sends, no case: a credential that is not a
    /// JWS at all, which no backend may take for a sign-in.
    static let calibrationVariant = "calibration"

    /// The variants a case is sent in (one, unnamed, for most).
    static func variants(of testCase: ConformanceCase, keys: Keys) -> [String] {
        switch testCase {
        case .algNone: ["none", "None", "NONE"]
        case .algHS256PublicKey: ConformanceSigning.PublicKeyForm.allCases.map(\.rawValue)
        case .algOtherAsymmetric: ["PS256", "RS512"]
        case .keyHeaderInjection: ["jwk", "jku", "x5u", "x5c"]
        case .jwsMalformed: ["two-segments", "four-segments", "not-base64"]
        case .okRealUserStatus: ["0", "1", "2", "absent"]
        case .stateBad: ["forged", "other-browser"]
        case .okKidNotFirst:
            // No variant with one key: the case is then skipped, and says why.
            keys.published.count < 2 ? [""] : keys.published.map(\.kid).filter { $0 != keys.signing.kid }
        default: [""]
        }
    }

    /// The nonce a token carries for `raw` under `scheme` (`nil` without one).
    static func tokenNonce(raw: String?, scheme: ConformanceConfig.NonceScheme) -> String? {
        guard let raw else { return nil }
        switch scheme {
        case .sha256Hex: return Data(SHA256.hash(data: Data(raw.utf8))).lowercaseHex
        case .raw: return raw
        case .none: return nil
        }
    }

    /// The token of `testCase` (in `variant`) made from `issued`, the claims Apple would issue.
    static func token(
        _ testCase: ConformanceCase, variant: String, issued: [String: JSONValue], keys: Keys, context: Context
    ) throws -> String {
        var claims = issued
        edit(&claims, for: testCase, variant: variant, context: context)
        let payload = try TokenMinter.encode(JSONValue.object(claims))
        let signing = keys.signing
        switch testCase {
        case .sigBad:
            return try signing.sign(payload: payload, alteringSignature: true)
        case .sigMissing:
            return ConformanceSigning.unsigned(payload, alg: "RS256", kid: signing.kid)
        case .algNone:
            return ConformanceSigning.unsigned(payload, alg: variant, kid: signing.kid)
        case .algHS256PublicKey:
            return ConformanceSigning.hs256(
                payload, publicKeyOf: signing, as: ConformanceSigning.PublicKeyForm(rawValue: variant) ?? .spkiPEM)
        case .algOtherAsymmetric:
            return try ConformanceSigning.otherAsymmetric(payload, key: signing, alg: variant)
        case .keyUntrustedSameKid:
            return try ConformanceSigning.rs256(
                payload, key: keys.stranger, header: ConformanceSigning.header(alg: "RS256", kid: signing.kid))
        case .keyHeaderInjection:
            let extra: [String: JSONValue] =
                switch variant {
                case "jwk": ["jwk": try jwk(of: keys.stranger)]
                case "jku": ["jku": .string(keys.attacker.jwksURL)]
                case "x5u": ["x5u": .string(keys.attacker.certificateURL)]
                // RFC 7515 §4.1.6: standard base64 (not base64url) of each DER certificate.
                default: ["x5c": .array([.string(Data(keys.attacker.certificateDER).base64EncodedString())])]
                }
            return try ConformanceSigning.rs256(
                payload, key: keys.stranger,
                header: ConformanceSigning.header(alg: "RS256", kid: keys.stranger.kid, extra: extra))
        case .kidUnknown:
            return try keys.stranger.sign(payload: payload)
        case .kidAbsentMulti:
            return try ConformanceSigning.rs256(
                payload, key: signing, header: ConformanceSigning.header(alg: "RS256", kid: nil))
        case .jwsMalformed:
            let valid = try signing.sign(payload: payload)
            let parts = valid.split(separator: ".", omittingEmptySubsequences: false)
            switch variant {
            case calibrationVariant: return "not-a-jws"
            case "two-segments": return parts.prefix(2).joined(separator: ".")
            case "four-segments": return valid + "." + parts[2]
            default: return parts[0] + ".eyJub3QgSlNPTi4!" + "." + parts[2]
            }
        case .okKidNotFirst:
            let key = keys.published.first { $0.kid == variant } ?? signing
            return try key.sign(payload: payload)
        case .okRotatedKey:
            return try (keys.rotated ?? signing).sign(payload: payload)
        default:
            return try signing.sign(payload: payload)
        }
    }

    /// The claims of `testCase` (the signing cases leave them as Apple issues them).
    static func edit(
        _ claims: inout [String: JSONValue], for testCase: ConformanceCase, variant: String, context: Context
    ) {
        let now = context.now
        let aud = claims["aud"] ?? .null
        switch testCase {
        case .okAudArray: claims["aud"] = .array([aud])
        case .okClaimsAsStrings:
            for name in ["email_verified", "is_private_email"] {
                if case .bool(let flag) = claims[name] { claims[name] = .string(flag ? "true" : "false") }
            }
            if claims["email_verified"] == nil { claims["email_verified"] = .string("true") }
        case .okClaimsAsBools:
            for name in ["email_verified", "is_private_email"] {
                if case .string(let text) = claims[name] { claims[name] = .bool(text == "true") }
            }
            if claims["email_verified"] == nil { claims["email_verified"] = .bool(true) }
        case .okRealUserStatus:
            claims["real_user_status"] = Double(variant).map(JSONValue.number)
        case .issWrong: claims["iss"] = .string(IdentityTokenMint.forgedIssuer)
        case .audOtherClient: claims["aud"] = .string(context.siblingClient)
        case .expPast:
            claims["iat"] = .number(Double(now - context.lifetime - 3_600))
            claims["exp"] = .number(Double(now - 3_600))
        case .nonceWrong:
            claims["nonce"] = tokenNonce(raw: (context.rawNonce ?? "") + "-other", scheme: context.nonceScheme)
                .map(JSONValue.string)
        case .nonceAbsentSupported:
            claims["nonce"] = nil
            claims["nonce_supported"] = .bool(true)
        case .nonceAbsentUnsupported:
            claims["nonce"] = nil
            claims["nonce_supported"] = .bool(false)
        case .nonceSchemeConfusion:
            // The other scheme's value: the raw nonce where the hash is expected, and the reverse.
            let other: ConformanceConfig.NonceScheme = context.nonceScheme == .raw ? .sha256Hex : .raw
            claims["nonce"] = tokenNonce(raw: context.rawNonce, scheme: other).map(JSONValue.string)
        case .issMissing: claims["iss"] = nil
        case .audMissing: claims["aud"] = nil
        case .audExtraMember: claims["aud"] = .array([aud, .string("com.attacker.app")])
        case .expMissing: claims["exp"] = nil
        case .iatMissing: claims["iat"] = nil
        case .subMissing: claims["sub"] = nil
        case .iatFuture:
            claims["iat"] = .number(Double(now + 3_600))
            claims["exp"] = .number(Double(now + 3_600 + context.lifetime))
        case .iatStale:
            claims["iat"] = .number(Double(now - 7 * 86_400))
            claims["exp"] = .number(Double(now + 600))
        case .skewSmall:
            claims["iat"] = .number(Double(now + 30))
            claims["exp"] = .number(Double(now + 30 + context.lifetime))
        case .boolStringFalse: claims["email_verified"] = .string("false")
        case .cHashBad: claims["c_hash"] = .string(IdentityTokenClaims.halfHash("not-the-code"))
        default: break
        }
    }

    /// `key`'s public JWK as a JSON value (for a `jwk` header).
    private static func jwk(of key: SigningKey) throws -> JSONValue {
        try JSONValue.parse(Data(key.encodedJWK))
    }
}
