import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The payload of an identity token as Apple writes it: integer times, absent
/// (not `null`) optional claims, and `email_verified` / `is_private_email` as booleans or strings.
struct IdentityTokenClaims: Sendable, AppleJSONObject {
    var iss = "https://appleid.apple.com"
    var aud: String
    var exp: Int
    var iat: Int
    var sub: String
    var nonce: String?
    var cHash: String?
    var atHash: String?
    var email: String?
    var emailVerified: Bool?
    var isPrivateEmail: Bool?
    var authTime: Int?
    var nonceSupported: Bool?
    var realUserStatus: Int?
    var transferSub: String?
    var orgId: String?
    /// How the two flag claims are written.
    var booleanStyle: MockSettings.BooleanClaimStyle

    /// The JSON names of the fields.
    private enum CodingKeys: String, CodingKey {
        case iss, aud, exp, iat, sub, nonce, email
        case cHash = "c_hash"
        case atHash = "at_hash"
        case emailVerified = "email_verified"
        case isPrivateEmail = "is_private_email"
        case authTime = "auth_time"
        case nonceSupported = "nonce_supported"
        case realUserStatus = "real_user_status"
        case transferSub = "transfer_sub"
        case orgId = "org_id"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(iss, forKey: .iss)
        try container.encode(aud, forKey: .aud)
        try container.encode(exp, forKey: .exp)
        try container.encode(iat, forKey: .iat)
        try container.encode(sub, forKey: .sub)
        try container.encodeIfPresent(nonce, forKey: .nonce)
        try container.encodeIfPresent(cHash, forKey: .cHash)
        try container.encodeIfPresent(atHash, forKey: .atHash)
        try container.encodeIfPresent(email, forKey: .email)
        try encodeFlag(emailVerified, .emailVerified, into: &container)
        try encodeFlag(isPrivateEmail, .isPrivateEmail, into: &container)
        try container.encodeIfPresent(authTime, forKey: .authTime)
        try container.encodeIfPresent(nonceSupported, forKey: .nonceSupported)
        try container.encodeIfPresent(realUserStatus, forKey: .realUserStatus)
        try container.encodeIfPresent(transferSub, forKey: .transferSub)
        try container.encodeIfPresent(orgId, forKey: .orgId)
    }

    private func encodeFlag(
        _ value: Bool?, _ key: CodingKeys, into container: inout KeyedEncodingContainer<CodingKeys>
    ) throws {
        guard let value else { return }
        switch (booleanStyle, key) {
        case (.boolean, _), (.mixed, .emailVerified): try container.encode(value, forKey: key)
        case (.string, _), (.mixed, _): try container.encode(value ? "true" : "false", forKey: key)
        }
    }

    /// The claims in the order of their keys' bytes, as `encode(to:)` under `.sortedKeys` writes them.
    func writeMembers(to writer: inout AppleJSONWriter) {
        writer.member("at_hash", atHash)
        writer.member("aud", aud)
        writer.member("auth_time", authTime)
        writer.member("c_hash", cHash)
        writer.member("email", email)
        writeFlag(emailVerified, "email_verified", .emailVerified, to: &writer)
        writer.member("exp", exp)
        writer.member("iat", iat)
        writeFlag(isPrivateEmail, "is_private_email", .isPrivateEmail, to: &writer)
        writer.member("iss", iss)
        writer.member("nonce", nonce)
        writer.member("nonce_supported", nonceSupported)
        writer.member("org_id", orgId)
        writer.member("real_user_status", realUserStatus)
        writer.member("sub", sub)
        writer.member("transfer_sub", transferSub)
    }

    private func writeFlag(_ value: Bool?, _ name: StaticString, _ key: CodingKeys, to writer: inout AppleJSONWriter) {
        guard let value else { return }
        switch (booleanStyle, key) {
        case (.boolean, _), (.mixed, .emailVerified): writer.member(name, value)
        case (.string, _), (.mixed, _): writer.member(name, value ? "true" : "false")
        }
    }

    /// OIDC's `at_hash` / `c_hash`: base64url of the left half of SHA-256 of the value.
    static func halfHash(_ value: String) -> String {
        Data(Data(SHA256.hash(data: Data(value.utf8))).prefix(16)).base64URLEncoded
    }
}
