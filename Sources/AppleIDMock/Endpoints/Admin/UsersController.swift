import Foundation
import Hummingbird

/// `GET /__admin/users`: the active scenario's users and their state with each app group
/// (`UserStatesView`), as the dashboard's Users section shows them.
struct UsersController: Sendable {
    let services: MockServices

    func addRoutes(to router: Router<MockRequestContext>) {
        router.get("__admin/users") { _, context in await AdminBody.run { try await self.list(context) } }
    }

    private func list(_ context: MockRequestContext) async throws -> Response {
        let active = try await services.active(context)
        let view = try await services.state.withSession(active) { session, world in
            let records = try await session.userRecords()
            return UserStatesView(
                world: world, consents: records.consents, deletedAccounts: records.deleted,
                relayOff: records.relayOff)
        }
        return Responses.adminJSON(view)
    }
}
