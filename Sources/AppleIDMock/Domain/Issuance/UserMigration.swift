#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// App transfer's user migration (reference §8), the rules behind `/auth/usermigrationinfo`: the
/// sending team turns its `sub` into a `transfer_sub` for the recipient team; the recipient turns the
/// `transfer_sub` into its own `sub` (and relay `email`). The bearer, the teams and the 60-day window
/// are checked as Apple does, in one store step.
enum UserMigration {
    /// Which side of the migration is asking.
    enum Step: Sendable {
        /// The sending team: its `sub` for the recipient `target`.
        case transferSubject(sub: String, target: String)
        /// The recipient team: the `transfer_sub` it was handed.
        case recipientSubject(transferSub: String)
    }

    /// The answer: `transfer_sub` for the sender, `sub` (+ `email`, `is_private_email`) for the recipient.
    struct Answer: Encodable, Sendable {
        var transferSub: String?
        var sub: String?
        var email: String?
        var isPrivateEmail: Bool?

        /// The JSON names of the fields.
        enum CodingKeys: String, CodingKey {
            case sub, email
            case transferSub = "transfer_sub"
            case isPrivateEmail = "is_private_email"
        }
    }

    /// The answer to `step` for `client` of `team`, spending the user access token `bearer` (`nil`:
    /// the parameters named neither side, refused once the bearer is checked).
    static func answer(
        _ step: Step?, bearer: String, client: World.Client, team: String, state: MockState, active: ActiveScenario,
        journal: JournalDraft?
    ) async throws -> Answer {
        let now = active.now
        return try await state.withSession(active) { session, world in
            _ = try await session.migrationBearer(bearer, clientId: client.id, teamId: team, now: now)
            let answer: Answer
            switch step {
            case nil:
                throw AppleError.invalidRequest(
                    "send either sub and target (sending team) or transfer_sub (recipient team)")
            case .transferSubject(let sub, let target):
                answer = try await transferSubject(
                    sub: sub, target: target, client: client, team: team, world: world, session: session, now: now,
                    journal: journal)
            case .recipientSubject(let transferSub):
                answer = try await recipientSubject(
                    transferSub: transferSub, client: client, team: team, world: world, session: session, now: now,
                    journal: journal)
            }
            // A user access token is single use, once the call succeeds.
            try await session.spendForMigration(bearer, now: now)
            return answer
        }
    }

    /// Step 1: the sending team's `sub` → the `transfer_sub` for `target`. Allowed before the transfer
    /// and during the window after it.
    private static func transferSubject(
        sub: String, target: String, client: World.Client, team: String, world: World, session: Session, now: Date,
        journal: JournalDraft?
    ) async throws -> Answer {
        let transfer = world.transfers[client.appGroupId]
        if let transfer {
            guard team == transfer.fromTeam else {
                throw AppleError.invalidRequest(
                    "only the sending team \(transfer.fromTeam) creates transfer ids for \(client.appGroupId)")
            }
            guard transfer.isOpen(at: now, days: world.settings.migrationWindowDays) else {
                throw AppleError.invalidRequest(
                    "the migration window of \(client.appGroupId) closed at \(transfer.windowEnd(days: world.settings.migrationWindowDays))"
                )
            }
        }
        guard world.teams[target] != nil, target != team, transfer.map({ $0.toTeam == target }) ?? true else {
            throw AppleError.invalidRequest("target \(target) is not the recipient team of \(client.appGroupId)")
        }
        let user = try await migratableUser(
            world.user(withSubject: sub, teamId: team), sub: sub, client: client,
            session: session, journal: journal)
        return Answer(
            transferSub: IdentifierDerivation.transferSubject(
                userKey: world.identityKey(of: user), fromTeam: team, toTeam: target))
    }

    /// Step 2: the recipient's `transfer_sub` → its own `sub`, and the new relay address if the user hid theirs.
    private static func recipientSubject(
        transferSub: String, client: World.Client, team: String, world: World, session: Session, now: Date,
        journal: JournalDraft?
    ) async throws -> Answer {
        guard let transfer = world.transfers[client.appGroupId], team == transfer.toTeam else {
            throw AppleError.invalidRequest("\(client.appGroupId) was not transferred to team \(team)")
        }
        guard transfer.isOpen(at: now, days: world.settings.migrationWindowDays) else {
            throw AppleError.invalidRequest(
                "the migration window of \(client.appGroupId) closed at \(transfer.windowEnd(days: world.settings.migrationWindowDays))"
            )
        }
        let match = world.scenario.users.first {
            IdentifierDerivation.transferSubject(
                userKey: world.identityKey(of: $0), fromTeam: transfer.fromTeam, toTeam: team)
                == transferSub
        }
        let user = try await migratableUser(
            match, sub: transferSub, client: client, session: session, journal: journal)
        guard let consent = try await session.consent(userKey: user.key, appGroupId: client.appGroupId) else {
            throw AppleError.invalidRequest("user never authorized \(client.appGroupId)")
        }
        let identity = world.emailIdentity(of: user, consent: consent, teamId: team)
        let relay = identity?.isPrivate == true ? identity : nil
        return Answer(
            sub: world.subject(of: user, teamId: team), email: relay?.email, isPrivateEmail: relay.map { _ in true })
    }

    /// The user behind an identifier, if they still authorize the app group (Apple refuses users who
    /// revoked before migration with `invalid_request`).
    private static func migratableUser(
        _ user: User?, sub: String, client: World.Client, session: Session, journal: JournalDraft?
    ) async throws -> User {
        journal?.note(userKey: user?.key)
        guard let user else { throw AppleError.invalidRequest("no user with id \(sub) for this team") }
        guard try await session.credentialState(userKey: user.key, appGroupId: client.appGroupId) == .authorized else {
            throw AppleError.invalidRequest(
                "user \(user.key) revoked access to \(client.appGroupId) (or never authorized it) before migration")
        }
        return user
    }
}
