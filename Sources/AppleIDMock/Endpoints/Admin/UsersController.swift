import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `GET /__admin/users`: the active scenario's users and their state with each app group
/// (`UserStatesView`), as the dashboard's Users section shows them.
struct UsersController: Sendable {

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.get(RouterPath(AdminPath.users)) { _, context in try await self.list(context) }
    }

    private func list(_ context: WorldRequestContext) async throws -> Response {
        let state = context.world
        let active = try await context.current()
        let view = try await state.withSession(active) { session, world in
            let records = try await session.userRecords()
            return UserStatesView(
                world: world, consents: records.consents, deletedAccounts: records.deleted,
                relayOff: records.relayOff)
        }
        return Responses.adminJSON(view)
    }
}
