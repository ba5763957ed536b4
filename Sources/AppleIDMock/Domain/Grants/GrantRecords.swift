import Foundation

/// An authorization code: single use, short-lived, bound to the client, the return URL and any
/// PKCE challenge, and to the consent it came from.
public struct AuthorizationCodeRecord: Sendable, Codable {
    public var code: String
    public var clientId: String
    public var appGroupId: String
    public var userKey: String
    /// The `redirect_uri` of the authorization (`nil` for native codes).
    public var redirectUri: String?
    public var nonce: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    public var issuedAt: Date
    public var expiresAt: Date
    /// When the user authenticated (the `auth_time` claim).
    public var authTime: Date
    public var consentGeneration: Int
    /// When it was exchanged, if it was.
    public var redeemedAt: Date?
}

/// An opaque access token (`a…`): lives an hour; revoking it ends the consent.
public struct AccessTokenRecord: Sendable, Codable {
    public var token: String
    public var clientId: String
    public var appGroupId: String
    public var userKey: String
    public var expiresAt: Date
    public var consentGeneration: Int
}

/// An opaque refresh token (`r…`): no expiry; valid while the consent it came from stands.
public struct RefreshTokenRecord: Sendable, Codable {
    public var token: String
    public var clientId: String
    public var appGroupId: String
    public var userKey: String
    public var authTime: Date
    public var nonce: String?
    public var consentGeneration: Int
}
