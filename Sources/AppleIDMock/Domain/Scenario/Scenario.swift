import Foundation
import JWTKit

/// One world the mock serves: developer teams, their app groups and the Apple Account users who
/// sign in to them, plus the behaviour switches in `settings`. Loaded from `scenarios/<name>.json`.
public struct Scenario: Sendable {
    /// The scenario's name: its file name without `.json`.
    public var name: String
    /// Where it was loaded from (a file path, or "request body"), for error messages.
    public var source: String
    /// Free text for people reading `/__admin/scenario`.
    public var description: String
    /// Behaviour switches (Apple's field behaviour by default).
    public var settings: MockSettings
    /// Developer teams, each with its Sign in with Apple keys.
    public var teams: [Team]
    /// App groups (a primary App ID and its grouped Services IDs).
    public var appGroups: [AppGroup]
    /// Apple Account users.
    public var users: [User]
    /// Lifecycle events that happen at start-up or at a time on the mock's clock.
    public var events: [ScheduledEvent] = []
    /// App group transfers between teams, at start-up or at a time on the mock's clock.
    public var transfers: [ScheduledTransfer] = []
}

/// A lifecycle event a scenario schedules: at start-up (`at` absent) or when the mock's clock reaches `at`.
public struct ScheduledEvent: Sendable {
    public var event: LifecycleEvent
    public var at: Date?
}

/// A developer team: the `iss` of its client secrets and the keys that sign them.
public struct Team: Sendable {
    /// 10 uppercase alphanumerics, e.g. `DEF123GHIJ`.
    public var teamId: String
    /// A display name.
    public var name: String
    /// Sign in with Apple keys registered for the team (public halves).
    public var developerKeys: [DeveloperKey]
}

/// A team's Sign in with Apple key (the public half of an Apple `.p8` key).
public struct DeveloperKey: Sendable {
    /// The 10-character Key ID in the client secret's `kid` header.
    public var keyId: String
    /// The PEM text as written in the scenario.
    public var publicKeyPEM: String
    /// The parsed key used to check client secret signatures.
    public var publicKey: ES256PublicKey
}

/// A primary App ID and the Services IDs grouped with it; consent and first sign-in are per group.
public struct AppGroup: Sendable {
    /// A stable name for the group inside the scenario.
    public var id: String
    /// The owning team.
    public var teamId: String
    /// The primary App ID (bundle id): the `aud` of native tokens and of notifications.
    public var primaryBundleId: String
    /// Further App IDs grouped with the primary one.
    public var bundleIds: [String]
    /// Services IDs for web sign-in, each with its registered return URLs.
    public var servicesIds: [ServicesID]
    /// Where server-to-server notifications for this group are sent.
    public var notificationUrl: String?
}

/// A Services ID: the `client_id` of web sign-in, with the return URLs registered for it.
public struct ServicesID: Sendable {
    /// The Services ID, e.g. `com.example.web`.
    public var identifier: String
    /// Registered return URLs, matched exactly.
    public var redirectUris: [String]
}

/// An Apple Account user as the scenario describes them.
public struct User: Sendable {
    /// A stable key, the seed of the user's team-scoped `sub` and relay addresses.
    public var key: String
    /// The real address (empty for some managed accounts).
    public var email: String
    /// The name the consent sheet offers.
    public var name: PersonName?
    /// Whether the user picks "Hide My Email" by default.
    public var hideEmail: Bool
    /// 0 unsupported, 1 unknown, 2 likely real.
    public var realUserStatus: Int
    /// Whether Apple verified the real address.
    public var emailVerified: Bool
    /// A Managed Apple Account (Apple Business or School Manager).
    public var managedAccount: Bool
    /// The managing organisation of a managed account.
    public var orgId: String?
}

/// A user's name as sent in the first authorization's `user` JSON.
public struct PersonName: Sendable, Codable, Equatable {
    public var firstName: String?
    public var lastName: String?
}
