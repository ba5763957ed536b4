#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The session's rules applied inside one store step: consents, codes, tokens, account lifecycle and
/// migration bearers. Each method loads the records it needs, decides with `GrantRules` and writes
/// the outcome; the step makes it atomic on every store.
struct Session {
    let transaction: any StateTransaction

    /// The key of a (user, app group) pair.
    static func consentKey(_ userKey: String, _ appGroupId: String) -> String {
        "\(userKey)\u{1F}\(appGroupId)"
    }

    /// The group that a consent's codes and tokens die with.
    static func grantGroup(_ userKey: String, _ appGroupId: String, generation: Int) -> String {
        "\(consentKey(userKey, appGroupId))\u{1F}\(generation)"
    }

    // MARK: - Consent

    /// The consent record of a user for an app group (standing or revoked), if there ever was one.
    func consent(userKey: String, appGroupId: String) async throws -> Consent? {
        try await transaction.get(Spaces.consents, Self.consentKey(userKey, appGroupId))
    }

    /// The consent a grant came from (`nil` when there is no grant, or no consent).
    private func consent(behind grant: (userKey: String, appGroupId: String)?) async throws -> Consent? {
        guard let grant else { return nil }
        return try await consent(userKey: grant.userKey, appGroupId: grant.appGroupId)
    }

    /// All consent records, sorted by user then group.
    func allConsents() async throws -> [Consent] {
        try await transaction.list(Spaces.consents).map(\.value)
            .sorted { ($0.userKey, $0.appGroupId) < ($1.userKey, $1.appGroupId) }
    }

    /// Authorizes `userKey` for the group (see `GrantRules.authorize`).
    func authorize(userKey: String, appGroupId: String, scopes: [String], hidesEmail: Bool, now: Date)
        async throws -> (consent: Consent, isFirst: Bool)
    {
        let outcome = try GrantRules.authorize(
            existing: try await consent(userKey: userKey, appGroupId: appGroupId),
            accountDeleted: try await isDeleted(userKey), userKey: userKey, appGroupId: appGroupId, scopes: scopes,
            hidesEmail: hidesEmail, now: now)
        if outcome.isFirst {
            try await transaction.put(Spaces.consents, Self.consentKey(userKey, appGroupId), outcome.consent)
        }
        return outcome
    }

    /// The spaces whose entries die with the consent they came from.
    static let grantSpaces = [
        Spaces.codes.name, Spaces.spentCodes.name, Spaces.accessTokens.name, Spaces.refreshTokens.name,
    ]

    /// Ends a user's consent for a group: its codes and tokens are deleted. Returns whether one stood.
    @discardableResult
    func revokeConsent(userKey: String, appGroupId: String, now: Date) async throws -> Bool {
        let key = Self.consentKey(userKey, appGroupId)
        guard var consent = try await transaction.get(Spaces.consents, key), consent.status == .authorized else {
            return false
        }
        consent.status = .revoked
        consent.revokedAt = now
        try await transaction.put(Spaces.consents, key, consent)
        try await transaction.delete(Spaces.relayOff, key)  // a new consent starts with forwarding on
        try await transaction.deleteGroup(
            Self.grantGroup(userKey, appGroupId, generation: consent.generation), in: Self.grantSpaces)
        return true
    }

    // MARK: - Codes and tokens

    /// Stores a new authorization code; it expires (and is swept) on the mock's clock.
    func store(code record: AuthorizationCodeRecord) async throws {
        try await transaction.put(
            Spaces.codes, record.code, record,
            index: EntryIndex(
                expiresAt: record.expiresAt,
                group: Self.grantGroup(record.userKey, record.appGroupId, generation: record.consentGeneration)))
    }

    /// Exchanges a code (see `GrantRules.redeem`); the code is spent on success.
    func redeem(
        code: String, clientId: String, redirectUri: String?, codeVerifier: String?, pkce: MockSettings.PKCEMode,
        emptyRedirectUri: MockSettings.NativeEmptyRedirectUri = .refuse, now: Date
    ) async throws -> AuthorizationCodeRecord {
        let stored = try await transaction.get(Spaces.codes, code)
        if stored == nil, try await transaction.get(Spaces.spentCodes, code) != nil { throw AppleError.codeUsed }
        let consent = try await consent(behind: stored.map { ($0.userKey, $0.appGroupId) })
        let record = try GrantRules.redeem(
            stored, consent: consent, clientId: clientId, redirectUri: redirectUri, codeVerifier: codeVerifier,
            pkce: pkce, emptyRedirectUri: emptyRedirectUri, now: now)
        try await spend(code: record, now: now)
        return record
    }

    /// Keeps of an exchanged code only that it is spent, until it would have expired, in the group it
    /// dies with: all a second exchange needs to be refused, in a fraction of the record's room.
    private func spend(code record: AuthorizationCodeRecord, now: Date) async throws {
        try await transaction.delete(Spaces.codes, record.code)
        try await transaction.put(
            Spaces.spentCodes, record.code, Marker(at: now),
            index: EntryIndex(
                expiresAt: record.expiresAt,
                group: Self.grantGroup(record.userKey, record.appGroupId, generation: record.consentGeneration)))
    }

    /// Stores an access token and, when given, a refresh token.
    func store(access: AccessTokenRecord, refresh: RefreshTokenRecord?) async throws {
        try await transaction.put(
            Spaces.accessTokens, access.token, access,
            index: EntryIndex(
                expiresAt: access.expiresAt,
                group: Self.grantGroup(access.userKey, access.appGroupId, generation: access.consentGeneration)))
        if let refresh {
            try await transaction.put(
                Spaces.refreshTokens, refresh.token, refresh,
                index: EntryIndex(
                    group: Self.grantGroup(refresh.userKey, refresh.appGroupId, generation: refresh.consentGeneration)))
        }
    }

    /// A refresh token that still works for `clientId`, with its consent.
    func refreshToken(_ token: String, clientId: String) async throws -> (
        record: RefreshTokenRecord, consent: Consent
    ) {
        let stored = try await transaction.get(Spaces.refreshTokens, token)
        let consent = try await consent(behind: stored.map { ($0.userKey, $0.appGroupId) })
        let record = try GrantRules.refresh(stored, consent: consent, clientId: clientId)
        guard let consent else { throw AppleError.tokenRevoked }
        return (record, consent)
    }

    /// Revokes a refresh or access token issued to `clientId`: the consent it came from ends. Returns
    /// the user whose consent ended; unknown tokens, tokens of other clients and spent consents change
    /// nothing (Apple still answers 200).
    func revoke(token: String, clientId: String, hint: String?, now: Date) async throws -> String? {
        let refresh = try await transaction.get(Spaces.refreshTokens, token).map {
            ($0.clientId, $0.userKey, $0.appGroupId, $0.consentGeneration)
        }
        let access = try await transaction.get(Spaces.accessTokens, token).map {
            ($0.clientId, $0.userKey, $0.appGroupId, $0.consentGeneration)
        }
        let found = hint == "access_token" ? (access ?? refresh) : (refresh ?? access)
        guard let (owner, userKey, appGroupId, generation) = found, owner == clientId,
            GrantRules.isStanding(try await consent(userKey: userKey, appGroupId: appGroupId), generation: generation)
        else { return nil }
        return try await revokeConsent(userKey: userKey, appGroupId: appGroupId, now: now) ? userKey : nil
    }

    // MARK: - Account lifecycle

    /// Whether the user's Apple Account was deleted.
    func isDeleted(_ userKey: String) async throws -> Bool {
        try await transaction.get(Spaces.deletedAccounts, userKey) != nil
    }

    /// The credential state of a user for an app group.
    func credentialState(userKey: String, appGroupId: String) async throws -> CredentialState {
        GrantRules.credentialState(
            consent: try await consent(userKey: userKey, appGroupId: appGroupId),
            accountDeleted: try await isDeleted(userKey))
    }

    /// Every consent (by `consentKey`), deleted account and relay switched off: what a view of all
    /// users needs, read in three listings.
    func userRecords() async throws -> (consents: [String: Consent], deleted: Set<String>, relayOff: Set<String>) {
        let consents = try await transaction.list(Spaces.consents)
        return (
            Dictionary(consents.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first }),
            Set(try await transaction.list(Spaces.deletedAccounts).map(\.key)),
            Set(try await transaction.list(Spaces.relayOff).map(\.key))
        )
    }

    /// Whether relay mail for the user and group is forwarded.
    func relayForwarding(userKey: String, appGroupId: String) async throws -> Bool {
        let off = try await transaction.get(Spaces.relayOff, Self.consentKey(userKey, appGroupId)) != nil
        let deleted = try await isDeleted(userKey)
        return !off && !deleted
    }

    /// Deletes the user's Apple Account: every consent ends (so every token of every team dies) and
    /// relay forwarding stops. Returns the app groups whose consent stood, which Apple notifies.
    func deleteAccount(userKey: String, now: Date) async throws -> [String] {
        guard try await !isDeleted(userKey) else {
            throw ControlRefusal.notApplicable("the Apple Account of user \(userKey) is already deleted")
        }
        let standing = try await transaction.list(Spaces.consents, prefix: Self.consentKey(userKey, ""))
            .map(\.value).filter { $0.userKey == userKey && $0.status == .authorized }.map(\.appGroupId).sorted()
        for appGroupId in standing { try await revokeConsent(userKey: userKey, appGroupId: appGroupId, now: now) }
        try await transaction.put(Spaces.deletedAccounts, userKey, Marker(at: now))
        return standing
    }

    /// Ends a standing consent because the user stopped using Sign in with Apple with the app.
    func userRevokes(userKey: String, appGroupId: String, now: Date) async throws {
        guard try await revokeConsent(userKey: userKey, appGroupId: appGroupId, now: now) else {
            throw ControlRefusal.notApplicable(
                "user \(userKey) has no standing authorization for app group \(appGroupId)")
        }
    }

    /// Turns relay forwarding off or on; only for a user who hides their email from the group.
    func setRelayForwarding(userKey: String, appGroupId: String, enabled: Bool, now: Date) async throws {
        guard let consent = try await consent(userKey: userKey, appGroupId: appGroupId), consent.status == .authorized
        else {
            throw ControlRefusal.notApplicable(
                "user \(userKey) has no standing authorization for app group \(appGroupId)")
        }
        guard consent.grantsEmail && consent.hidesEmail else {
            throw ControlRefusal.notApplicable(
                "user \(userKey) shares a real email (or no email) with app group \(appGroupId); relay forwarding applies only to Hide My Email"
            )
        }
        let key = Self.consentKey(userKey, appGroupId)
        let isOff = try await transaction.get(Spaces.relayOff, key) != nil
        guard isOff == enabled else {
            throw ControlRefusal.notApplicable(
                "relay forwarding is already \(enabled ? "on" : "off") for user \(userKey) and app group \(appGroupId)")
        }
        if enabled {
            try await transaction.delete(Spaces.relayOff, key)
        } else {
            try await transaction.put(Spaces.relayOff, key, Marker(at: now))
        }
    }

    /// Applies `event` as Apple would and returns the notifications it produces.
    func apply(_ event: LifecycleEvent, world: World, now: Date) async throws -> [NotificationDraft] {
        guard let user = world.users[event.userKey] else {
            throw ControlRefusal.notFound("no user \"\(event.userKey)\" in scenario \"\(world.scenario.name)\"")
        }
        func draft(_ groupId: String, email: String? = nil) -> NotificationDraft? {
            guard let group = world.appGroups[groupId] else { return nil }
            return NotificationDraft(
                appGroupId: groupId, kind: event.kind, sub: world.subject(of: user, teamId: group.teamId), email: email,
                eventTime: now)
        }
        if event.kind == .accountDelete {
            return try await deleteAccount(userKey: user.key, now: now).compactMap { draft($0) }
        }
        guard let groupId = event.appGroupId, let group = world.appGroups[groupId] else {
            throw ControlRefusal.notFound(
                "\(event.kind.rawValue) needs an app group (or one of its client ids); \"\(event.appGroupId ?? "")\" is not one"
            )
        }
        switch event.kind {
        case .consentRevoked:
            try await userRevokes(userKey: user.key, appGroupId: groupId, now: now)
            return draft(groupId).map { [$0] } ?? []
        case .emailDisabled, .emailEnabled:
            try await setRelayForwarding(
                userKey: user.key, appGroupId: groupId, enabled: event.kind == .emailEnabled, now: now)
            return draft(groupId, email: world.relayEmail(of: user, teamId: group.teamId)).map { [$0] } ?? []
        case .accountDelete:
            return []
        }
    }

    // MARK: - Migration

    /// Stores a client-credentials token.
    func store(migrationToken record: MigrationTokenRecord) async throws {
        try await transaction.put(
            Spaces.migrationTokens, record.token, record, index: EntryIndex(expiresAt: record.expiresAt))
    }

    /// Checks a bearer token for `/auth/usermigrationinfo` (see `GrantRules.migrationBearer`).
    func migrationBearer(_ token: String, clientId: String, teamId: String, now: Date) async throws
        -> MigrationBearer
    {
        let teamToken = try await transaction.get(Spaces.migrationTokens, token)
        let userToken = teamToken == nil ? try await transaction.get(Spaces.accessTokens, token) : nil
        let consent = try await consent(behind: userToken.map { ($0.userKey, $0.appGroupId) })
        let spent = try await transaction.get(Spaces.migrationSpent, token) != nil
        return try GrantRules.migrationBearer(
            teamToken: teamToken, userToken: userToken, userConsent: consent, spent: spent, clientId: clientId,
            teamId: teamId, now: now)
    }

    /// Marks a user access token as used for migration (after a successful call).
    func spendForMigration(_ token: String, now: Date) async throws {
        guard let access = try await transaction.get(Spaces.accessTokens, token) else { return }
        try await transaction.put(
            Spaces.migrationSpent, token, Marker(at: now), index: EntryIndex(expiresAt: access.expiresAt))
    }
}
