import Foundation

/// Every space of the mock's state.
enum Spaces {
    /// A user's consent per app group; key `user\u{1F}group`.
    static let consents = StoreSpace<Consent>("consent")
    /// Deleted Apple Accounts; key: the user.
    static let deletedAccounts = StoreSpace<Marker>("deleted_account")
    /// (user, group) pairs whose relay forwarding is off; key `user\u{1F}group`.
    static let relayOff = StoreSpace<Marker>("relay_off")
    /// Authorization codes; key: the code.
    static let codes = StoreSpace<AuthorizationCodeRecord>("code")
    /// Codes already exchanged, remembered only as spent until they would have expired; key: the code.
    static let spentCodes = StoreSpace<Marker>("spent_code")
    /// Access tokens; key: the token.
    static let accessTokens = StoreSpace<AccessTokenRecord>("access_token")
    /// Refresh tokens; key: the token.
    static let refreshTokens = StoreSpace<RefreshTokenRecord>("refresh_token")
    /// `client_credentials` tokens for user migration; key: the token.
    static let migrationTokens = StoreSpace<MigrationTokenRecord>("migration_token")
    /// User access tokens already spent on a migration call; key: the token.
    static let migrationSpent = StoreSpace<Marker>("migration_spent")
    /// The scenario in force, settings, clock offset and transfers; one key, `current`.
    static let control = StoreSpace<ControlState>("control")
    /// Scenarios uploaded over HTTP; key: the name.
    static let uploadedScenarios = StoreSpace<UploadedScenario>("uploaded_scenario")
    /// Private halves of keys made by rotations; key: the `kid`.
    static let generatedKeys = StoreSpace<GeneratedKey>("generated_key")
    /// How often each fault rule matched and fired; key: the rule's id.
    static let faultCounts = StoreSpace<FaultCounts>("fault_count")
    /// The request journal; key: the entry id, in time order.
    static let journal = StoreSpace<JournalEntry>("journal")
    /// The lifecycle event log; key: the entry id, in insertion order.
    static let eventLog = StoreSpace<EventLogEntry>("event_log")
    /// Server-to-server notifications and their attempts; key: the `jti`, in insertion order.
    static let outbox = StoreSpace<NotificationRecord>("outbox")

    /// The spaces a reset or scenario switch empties.
    static let session: [String] =
        [
            consents.name, deletedAccounts.name, relayOff.name, codes.name, spentCodes.name, accessTokens.name,
            refreshTokens.name,
            migrationTokens.name, migrationSpent.name, eventLog.name, outbox.name, faultCounts.name,
        ] + mailSpaces

    /// Every space, for stores that decode rows by space name.
    static let all: [String: AnyStoreSpace] = Dictionary(
        uniqueKeysWithValues: [
            AnyStoreSpace(consents), AnyStoreSpace(deletedAccounts), AnyStoreSpace(relayOff), AnyStoreSpace(codes),
            AnyStoreSpace(spentCodes),
            AnyStoreSpace(accessTokens), AnyStoreSpace(refreshTokens), AnyStoreSpace(migrationTokens),
            AnyStoreSpace(migrationSpent), AnyStoreSpace(control), AnyStoreSpace(uploadedScenarios),
            AnyStoreSpace(eventLog), AnyStoreSpace(outbox), AnyStoreSpace(generatedKeys), AnyStoreSpace(faultCounts),
            AnyStoreSpace(journal),
        ].map { ($0.name, $0) } + mailSpaceCodings.map { ($0.name, $0) })
}
