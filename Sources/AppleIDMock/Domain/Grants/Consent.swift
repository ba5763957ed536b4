import Foundation

/// A user's authorization of one app group: the scopes and email choice frozen at first consent, and
/// whether it still stands. Revoking ends it; the next authorization is a first one again.
public struct Consent: Sendable, Codable, Equatable {
    /// Whether the authorization stands.
    public enum Status: String, Sendable, Codable {
        case authorized
        case revoked
    }

    /// The user.
    public var userKey: String
    /// The app group.
    public var appGroupId: String
    /// `name` and/or `email`, as granted at first consent.
    public var scopes: [String]
    /// Whether the user chose Hide My Email (meaningful when `email` was granted).
    public var hidesEmail: Bool
    /// Current status.
    public var status: Status
    /// Counts authorizations; tokens from an earlier one die with it.
    public var generation: Int
    /// When the current authorization was granted.
    public var authorizedAt: Date
    /// When it was revoked, if it was.
    public var revokedAt: Date?

    /// Whether the email scope was granted.
    public var grantsEmail: Bool { scopes.contains("email") }
}
