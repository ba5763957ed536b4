import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `POST /auth/usermigrationinfo` (reference §8): the sending team turns its `sub` into a
/// `transfer_sub` for the recipient team; the recipient turns the `transfer_sub` into its own `sub`
/// (and relay `email`). Bearer token, client secret and the 60-day window are checked as Apple does.
struct MigrationController: Sendable {
    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.post(RouterPath(ApplePath.userMigrationInfo)) { request, context in
            let active = try await context.current()
            let form = try await RequestReading.tokenForm(request, context: context, settings: active.world.settings)
            guard let bearer = RequestReading.bearerToken(request) else {
                throw AppleError.invalidRequest("Authorization: Bearer <access token> is missing")
            }
            return try await self.migrate(
                form, bearer: bearer, state: context.world, active: active, journal: context.journal)
        }
    }

    /// The call in the state `active`: client and parameters checked, then the migration's rules.
    private func migrate(
        _ form: FormParameters, bearer: String, state: MockState, active: ActiveScenario, journal: JournalDraft?
    ) async throws -> Response {
        let (client, team) = try await ClientAuthentication.authenticate(
            clientId: try form.field("client_id"), secret: try form.field("client_secret"), in: active,
            journal: journal)
        let step: UserMigration.Step? =
            switch (try form.field("sub"), try form.field("target"), try form.field("transfer_sub")) {
            case (let sub?, let target?, nil): .transferSubject(sub: sub, target: target)
            case (nil, nil, let transferSub?): .recipientSubject(transferSub: transferSub)
            default: nil
            }
        let answer = try await UserMigration.answer(
            step, bearer: bearer, client: client, team: team, state: state, active: active, journal: journal)
        return Responses.appleJSON(answer)
    }
}
