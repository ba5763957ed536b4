#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Every space of the mock's state.
enum Spaces {
    /// A user's consent per app group; key `user\u{1F}group`.
    static let consents = StoreSpace<Consent>("consent", onReset: .clears, shown: "consents")
    /// Deleted Apple Accounts; key: the user.
    static let deletedAccounts = StoreSpace<Marker>("deleted_account", onReset: .clears)
    /// (user, group) pairs whose relay forwarding is off; key `user\u{1F}group`.
    static let relayOff = StoreSpace<Marker>("relay_off", onReset: .clears)
    /// Authorization codes; key: the code.
    static let codes = StoreSpace<AuthorizationCodeRecord>("code", onReset: .clears, keys: .issuedValues)
    /// Codes already exchanged, remembered only as spent until they would have expired; key: the code.
    static let spentCodes = StoreSpace<Marker>("spent_code", onReset: .clears, keys: .issuedValues)
    /// Access tokens; key: the token.
    static let accessTokens = StoreSpace<AccessTokenRecord>("access_token", onReset: .clears, keys: .issuedValues)
    /// Refresh tokens; key: the token.
    static let refreshTokens = StoreSpace<RefreshTokenRecord>("refresh_token", onReset: .clears, keys: .issuedValues)
    /// `client_credentials` tokens for user migration; key: the token.
    static let migrationTokens = StoreSpace<MigrationTokenRecord>(
        "migration_token", onReset: .clears, keys: .issuedValues)
    /// User access tokens already spent on a migration call; key: the token.
    static let migrationSpent = StoreSpace<Marker>("migration_spent", onReset: .clears, keys: .issuedValues)
    /// The scenario in force, settings, clock offset and transfers; one key, `current`.
    static let control = StoreSpace<ControlState>("control", onReset: .keeps)
    /// Scenarios uploaded over HTTP; key: the name.
    static let uploadedScenarios = StoreSpace<UploadedScenario>("uploaded_scenario", onReset: .keeps)
    /// Private halves of keys made by rotations; key: the `kid`.
    static let generatedKeys = StoreSpace<GeneratedKey>("generated_key", onReset: .keeps)
    /// How often each fault rule matched and fired; key: the rule's id.
    static let faultCounts = StoreSpace<FaultCounts>("fault_count", onReset: .clears)
    /// The namespaces made on the control plane or on first use (the default namespace's only);
    /// key: the name.
    static let namespaces = StoreSpace<NamespaceRecord>("namespace", onReset: .keeps)
    /// The request journal; key: the entry id, in time order.
    static let journal = StoreSpace<JournalEntry>("journal", onReset: .keeps, wakes: .journal, shown: "journal")
    /// The lifecycle event log; key: the entry id, in insertion order.
    static let eventLog = StoreSpace<EventLogEntry>("event_log", onReset: .clears, shown: "events")
    /// Server-to-server notifications and their attempts; key: the `jti`, in insertion order.
    static let outbox = StoreSpace<NotificationRecord>(
        "outbox", onReset: .clears, wakes: .outbox, shown: "notifications")

    /// Every space, in one registry: the core's, then one line per feature folder's list. A store
    /// refuses to write a space that is not here (`UnknownSpace`).
    static let registered: [AnyStoreSpace] =
        [
            AnyStoreSpace(consents), AnyStoreSpace(deletedAccounts), AnyStoreSpace(relayOff), AnyStoreSpace(codes),
            AnyStoreSpace(spentCodes), AnyStoreSpace(accessTokens), AnyStoreSpace(refreshTokens),
            AnyStoreSpace(migrationTokens), AnyStoreSpace(migrationSpent), AnyStoreSpace(control),
            AnyStoreSpace(uploadedScenarios), AnyStoreSpace(generatedKeys), AnyStoreSpace(faultCounts),
            AnyStoreSpace(journal), AnyStoreSpace(eventLog), AnyStoreSpace(outbox), AnyStoreSpace(namespaces),
        ]
        + mailSpaces

    /// The spaces a reset or scenario switch empties (those declared `.clears`).
    static let session: [String] = registered.filter(\.clearedOnReset).map(\.name)

    /// Every space by name, for stores that decode rows by space name.
    static let all: [String: AnyStoreSpace] = Dictionary(
        registered.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

    /// The registered space a stored space name stands for: the name itself, or for a namespace's
    /// own copy of a space (`team-a/journal`) the part after the `/` (`StoredSpaceName`).
    static func registeredSpace(named stored: String) -> AnyStoreSpace? {
        all[String(StoredSpaceName.spaceName(in: stored))]
    }

    /// Refuses a space that is not registered: a write to it would be lost by a store that decodes
    /// rows by space name.
    static func require(_ name: String) throws(UnknownSpace) {
        guard registeredSpace(named: name) != nil else { throw UnknownSpace(name: name) }
    }
}

/// A store was asked to write a space that `Spaces.registered` does not list (a bug in the mock).
struct UnknownSpace: Error, Sendable, CustomStringConvertible {
    let name: String

    var description: String { "the store space \"\(name)\" is not registered in Spaces.registered" }
}
