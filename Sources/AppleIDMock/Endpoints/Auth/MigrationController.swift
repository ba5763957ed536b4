import Foundation
import Hummingbird

/// `POST /auth/usermigrationinfo` (reference §8): the sending team turns its `sub` into a
/// `transfer_sub` for the recipient team; the recipient turns the `transfer_sub` into its own `sub`
/// (and relay `email`). Bearer token, client secret and the 60-day window are checked as Apple does.
struct MigrationController: Sendable {
    let services: MockServices

    func addRoutes(to router: Router<MockRequestContext>) {
        router.post("/auth/usermigrationinfo") { request, context in await self.migrate(request, context) }
    }

    /// The answer: `transfer_sub` for the sender, `sub` (+ `email`, `is_private_email`) for the recipient.
    struct Answer: Encodable {
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

    private func migrate(_ request: Request, _ context: MockRequestContext) async -> Response {
        do {
            let settings = try await services.active(context).world.settings
            let form = try await RequestReading.tokenForm(request, context: context, settings: settings)
            guard let bearer = RequestReading.bearerToken(request) else {
                throw OAuthError.invalidRequest("Authorization: Bearer <access token> is missing")
            }
            return try await services.rerunningAfterResets(context) { active in
                try await migrate(form, bearer: bearer, active: active)
            }
        } catch {
            return Responses.oauthError(services.refusal(error, endpoint: "usermigrationinfo"))
        }
    }

    /// The call in the state `active`: client, bearer and parameters checked, then the answer.
    private func migrate(_ form: FormParameters, bearer: String, active: ActiveScenario) async throws -> Response {
        let (client, team) = try await services.authenticate(form, in: active)
        let sub = try form.field("sub")
        let target = try form.field("target")
        let transferSub = try form.field("transfer_sub")
        let now = active.now
        let answer = try await services.state.withSession(active) { session, world in
            _ = try await session.migrationBearer(bearer, clientId: client.id, teamId: team, now: now)
            let answer: Answer
            switch (sub, target, transferSub) {
            case (let sub?, let target?, nil):
                answer = try await Self.transferSubject(
                    sub: sub, target: target, client: client, team: team, world: world, session: session, now: now)
            case (nil, nil, let transferSub?):
                answer = try await Self.recipientSubject(
                    transferSub: transferSub, client: client, team: team, world: world, session: session, now: now)
            default:
                throw OAuthError.invalidRequest(
                    "send either sub and target (sending team) or transfer_sub (recipient team)")
            }
            // A user access token is single use, once the call succeeds.
            try await session.spendForMigration(bearer, now: now)
            return answer
        }
        return Responses.appleJSON(answer)
    }

    /// Step 1: the sending team's `sub` → the `transfer_sub` for `target`. Allowed before the transfer
    /// and during the window after it.
    private static func transferSubject(
        sub: String, target: String, client: World.Client, team: String, world: World, session: Session, now: Date
    ) async throws -> Answer {
        let transfer = world.transfers[client.appGroupId]
        if let transfer {
            guard team == transfer.fromTeam else {
                throw OAuthError.invalidRequest(
                    "only the sending team \(transfer.fromTeam) creates transfer ids for \(client.appGroupId)")
            }
            guard transfer.isOpen(at: now, days: world.settings.migrationWindowDays) else {
                throw OAuthError.invalidRequest(
                    "the migration window of \(client.appGroupId) closed at \(transfer.windowEnd(days: world.settings.migrationWindowDays))"
                )
            }
        }
        guard world.teams[target] != nil, target != team, transfer.map({ $0.toTeam == target }) ?? true else {
            throw OAuthError.invalidRequest("target \(target) is not the recipient team of \(client.appGroupId)")
        }
        let user = try await migratableUser(
            world.user(withSubject: sub, teamId: team), sub: sub, client: client,
            session: session)
        return Answer(
            transferSub: IdentifierDerivation.transferSubject(userKey: user.key, fromTeam: team, toTeam: target))
    }

    /// Step 2: the recipient's `transfer_sub` → its own `sub`, and the new relay address if the user hid theirs.
    private static func recipientSubject(
        transferSub: String, client: World.Client, team: String, world: World, session: Session, now: Date
    ) async throws -> Answer {
        guard let transfer = world.transfers[client.appGroupId], team == transfer.toTeam else {
            throw OAuthError.invalidRequest("\(client.appGroupId) was not transferred to team \(team)")
        }
        guard transfer.isOpen(at: now, days: world.settings.migrationWindowDays) else {
            throw OAuthError.invalidRequest(
                "the migration window of \(client.appGroupId) closed at \(transfer.windowEnd(days: world.settings.migrationWindowDays))"
            )
        }
        let match = world.scenario.users.first {
            IdentifierDerivation.transferSubject(userKey: $0.key, fromTeam: transfer.fromTeam, toTeam: team)
                == transferSub
        }
        let user = try await migratableUser(match, sub: transferSub, client: client, session: session)
        guard let consent = try await session.consent(userKey: user.key, appGroupId: client.appGroupId) else {
            throw OAuthError.invalidRequest("user never authorized \(client.appGroupId)")
        }
        let identity = world.emailIdentity(of: user, consent: consent, teamId: team)
        let relay = identity?.isPrivate == true ? identity : nil
        return Answer(
            sub: world.subject(of: user, teamId: team), email: relay?.email, isPrivateEmail: relay.map { _ in true })
    }

    /// The user behind an identifier, if they still authorize the app group (Apple refuses users who
    /// revoked before migration with `invalid_request`).
    private static func migratableUser(_ user: User?, sub: String, client: World.Client, session: Session)
        async throws -> User
    {
        JournalDraft.current?.note(userKey: user?.key)
        guard let user else { throw OAuthError.invalidRequest("no user with id \(sub) for this team") }
        guard try await session.credentialState(userKey: user.key, appGroupId: client.appGroupId) == .authorized else {
            throw OAuthError.invalidRequest(
                "user \(user.key) revoked access to \(client.appGroupId) (or never authorized it) before migration")
        }
        return user
    }
}
