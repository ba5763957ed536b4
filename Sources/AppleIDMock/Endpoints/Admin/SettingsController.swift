import Foundation
import Hummingbird

/// `/__admin/settings`: the active scenario's settings (`MockSettings.table`), read and patched.
struct SettingsController: Sendable {
    let state: MockState

    func addRoutes(to group: RouterGroup<MockRequestContext>) {
        group.get(RouterPath(AdminPath.settings)) { _, context in
            Responses.adminJSON(try await context.active(in: state).world.settings)
        }
        group.patch(RouterPath(AdminPath.settings)) { request, _ in
            Responses.adminJSON(try await state.patchSettings(try await AdminBody.json(request)))
        }
    }
}
