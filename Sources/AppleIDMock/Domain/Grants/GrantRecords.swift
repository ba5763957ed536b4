#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An authorization code: single use, short-lived, bound to the client, the return URL and any
/// PKCE challenge, and to the consent it came from.
struct AuthorizationCodeRecord: Sendable, Codable, Equatable {
    var code: String
    var clientId: String
    var appGroupId: String
    var userKey: String
    /// The `redirect_uri` of the authorization (`nil` for native codes).
    var redirectUri: String?
    var nonce: String?
    var codeChallenge: String?
    var codeChallengeMethod: String?
    var issuedAt: Date
    var expiresAt: Date
    /// When the user authenticated (the `auth_time` claim).
    var authTime: Date
    var consentGeneration: Int
    /// When it was exchanged, if it was.
    var redeemedAt: Date?
}

/// An opaque access token (`a…`): lives an hour; revoking it ends the consent.
struct AccessTokenRecord: Sendable, Codable, Equatable {
    var token: String
    var clientId: String
    var appGroupId: String
    var userKey: String
    var expiresAt: Date
    var consentGeneration: Int
}

/// An opaque refresh token (`r…`): no expiry; valid while the consent it came from stands.
struct RefreshTokenRecord: Sendable, Codable, Equatable {
    var token: String
    var clientId: String
    var appGroupId: String
    var userKey: String
    var authTime: Date
    var nonce: String?
    var consentGeneration: Int
}
