#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A user's authorization of one app group: the scopes and email choice frozen at first consent, and
/// whether it still stands. Revoking ends it; the next authorization is a first one again.
struct Consent: Sendable, Codable, Equatable {
    /// Whether the authorization stands.
    enum Status: String, Sendable, Codable {
        case authorized
        case revoked
    }

    /// The user.
    var userKey: String
    /// The app group.
    var appGroupId: String
    /// `name` and/or `email`, as granted at first consent.
    var scopes: [String]
    /// Whether the user chose Hide My Email (meaningful when `email` was granted).
    var hidesEmail: Bool
    /// Current status.
    var status: Status
    /// Counts authorizations; tokens from an earlier one die with it.
    var generation: Int
    /// When the current authorization was granted.
    var authorizedAt: Date
    /// When it was revoked, if it was.
    var revokedAt: Date?

    /// Whether the email scope was granted.
    var grantsEmail: Bool { scopes.contains("email") }
}
