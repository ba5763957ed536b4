#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What `POST /__admin/mint/id-token` (and `apple-id-mock mint id-token`) is asked to make: a token
/// for a user and a client as one of Apple's flows would issue it, with claims set or removed, or
/// with one defect a backend must reject.
package struct IdentityTokenOrder: Sendable {
    /// Which of Apple's flows issues the token (its claims differ: reference §6.2).
    package enum Flow: String, Sendable, CaseIterable {
        /// The token endpoint's `authorization_code` grant (`at_hash`).
        case web
        /// A native app's credential (`c_hash`, `real_user_status`; `aud` is the bundle ID).
        case native
        /// The `refresh_token` grant (sparse claims).
        case refresh
    }

    /// The one thing wrong with a token, for a backend to reject.
    package enum Defect: String, Sendable, CaseIterable {
        /// `exp` an hour ago.
        case expired
        /// `iat` and `nbf` an hour ahead.
        case notYetValid = "not-yet-valid"
        /// An `iss` that starts like Apple's but is not.
        case wrongIssuer = "wrong-iss"
        /// Issued to another client.
        case wrongAudience = "wrong-aud"
        /// The signature's bytes altered.
        case badSignature = "bad-signature"
        /// `alg: none`, no signature.
        case algNone = "alg-none"
        /// HS256 keyed with the RSA public key's PEM (algorithm confusion).
        case hs256PublicKey = "hs256-public-key"
        /// Signed by a key in no JWKS.
        case unknownKid = "unknown-kid"
        /// No `kid` in the header.
        case missingKid = "missing-kid"
        /// A `nonce` other than the one sent.
        case wrongNonce = "wrong-nonce"

        /// Whether the defect is in the claims (the others are in the header or signature).
        var changesClaims: Bool {
            switch self {
            case .expired, .notYetValid, .wrongIssuer, .wrongAudience, .wrongNonce: true
            case .badSignature, .algNone, .hs256PublicKey, .unknownKid, .missingKid: false
            }
        }
    }

    package var userKey: String
    package var clientId: String
    package var flow = Flow.web
    /// The nonce of the sign-in (echoed verbatim, as Apple does).
    package var nonce: String?
    /// The scopes of a first consent (default `name email`); a stored consent keeps its own.
    package var scopes: [String]?
    /// Claims to set (any JSON value) over the ones the flow issues.
    package var set: [String: JSONValue] = [:]
    /// Claims to leave out.
    package var remove: [String] = []
    package var defect: Defect?

    package init(userKey: String, clientId: String) {
        self.userKey = userKey
        self.clientId = clientId
    }
}

/// A minted token with what a backend should make of it.
package struct MintedToken: Encodable, Sendable {
    /// The compact JWS.
    package var token: String
    /// The defect it carries, if any.
    package var defect: String?
    /// `accept` (a valid token) or `reject` (a defect).
    package var expected: String

    /// Its decoded header, read from `token` when asked (minting many need not decode them).
    package var header: JSONValue { Self.decodedSegment(of: token, at: 0) }
    /// Its decoded claims, read from `token` when asked.
    package var claims: JSONValue { Self.decodedSegment(of: token, at: 1) }

    private static func decodedSegment(of token: String, at index: Int) -> JSONValue {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard index < segments.count, let data = Data(base64URLEncoded: segments[index]),
            let value = try? JSONValue.parse(data)
        else { return .object([:]) }
        return value
    }

    enum CodingKeys: String, CodingKey {
        case token, header, claims, defect, expected
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(token, forKey: .token)
        try container.encode(header, forKey: .header)
        try container.encode(claims, forKey: .claims)
        try container.encodeIfPresent(defect, forKey: .defect)
        try container.encode(expected, forKey: .expected)
    }
}
