import JWTKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One world the mock serves: developer teams, their app groups and the Apple Account users who
/// sign in to them, plus the behaviour switches in `settings`. Loaded from `scenarios/<name>.json`.
struct Scenario: Sendable {
    /// The scenario's name: its file name without `.json`.
    var name: String
    /// Where it was loaded from (a file path, or "request body"), for error messages.
    var source: String
    /// Free text for people reading `/__admin/scenario`.
    var description: String
    /// Behaviour switches (Apple's field behaviour by default).
    var settings: MockSettings
    /// Developer teams, each with its Sign in with Apple keys.
    var teams: [Team]
    /// App groups (a primary App ID and its grouped Services IDs).
    var appGroups: [AppGroup]
    /// Apple Account users.
    var users: [User]
    /// Lifecycle events that happen at start-up or at a time on the mock's clock.
    var events: [ScheduledEvent] = []
    /// App group transfers between teams, at start-up or at a time on the mock's clock.
    var transfers: [ScheduledTransfer] = []
}

/// A lifecycle event a scenario schedules: at start-up (`at` absent) or when the mock's clock reaches `at`.
struct ScheduledEvent: Sendable {
    var event: LifecycleEvent
    var at: Date?
}

/// A developer team: the `iss` of its client secrets and the keys that sign them.
struct Team: Sendable {
    /// 10 uppercase alphanumerics, e.g. `DEF123GHIJ`.
    var teamId: String
    /// A display name.
    var name: String
    /// Sign in with Apple keys registered for the team (halves).
    var developerKeys: [DeveloperKey]
    /// The senders registered for the private email relay (none: all relay mail is refused).
    var emailSources = EmailSources()
}

/// A team's Sign in with Apple key (the half of an Apple `.p8` key).
struct DeveloperKey: Sendable {
    /// The 10-character Key ID in the client secret's `kid` header.
    var keyId: String
    /// The PEM text as written in the scenario.
    var publicKeyPEM: String
    /// The parsed key used to check client secret signatures.
    var publicKey: ES256PublicKey
}

/// A primary App ID and the Services IDs grouped with it; consent and first sign-in are per group.
struct AppGroup: Sendable {
    /// A stable name for the group inside the scenario.
    var id: String
    /// The owning team.
    var teamId: String
    /// The primary App ID (bundle id): the `aud` of native tokens and of notifications.
    var primaryBundleId: String
    /// Further App IDs grouped with the primary one.
    var bundleIds: [String]
    /// Services IDs for web sign-in, each with its registered return URLs.
    var servicesIds: [ServicesID]
    /// Where server-to-server notifications for this group are sent.
    var notificationUrl: String?
}

/// A Services ID: the `client_id` of web sign-in, with the return URLs registered for it.
struct ServicesID: Sendable {
    /// The Services ID, e.g. `com.example.web`.
    var identifier: String
    /// Registered return URLs, matched exactly.
    var redirectUris: [String]
}

/// An Apple Account user as the scenario describes them.
struct User: Sendable {
    /// A stable key, the seed of the user's team-scoped `sub` and relay addresses.
    var key: String
    /// The real address (empty for some managed accounts).
    var email: String
    /// The name the consent sheet offers.
    var name: PersonName?
    /// Whether the user picks "Hide My Email" by default.
    var hideEmail: Bool
    /// 0 unsupported, 1 unknown, 2 likely real.
    var realUserStatus: Int
    /// Whether Apple verified the real address.
    var emailVerified: Bool
    /// A Managed Apple Account (Apple Business or School Manager).
    var managedAccount: Bool
    /// The managing organisation of a managed account.
    var orgId: String?
}

/// A user's name as sent in the first authorization's `user` JSON.
struct PersonName: Sendable, Codable, Equatable {
    var firstName: String?
    var lastName: String?
}
