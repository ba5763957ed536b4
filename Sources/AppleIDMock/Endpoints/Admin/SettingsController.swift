import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `/__admin/settings`: the active scenario's settings (`MockSettings.table`), read and patched.
struct SettingsController: Sendable {
    var state: MockState

    func addRoutes(to group: RouterGroup<MockRequestContext>) {
        group.get(RouterPath(AdminPath.settings)) { _, context in
            Responses.adminJSON(try await context.active(in: self.scoped(context).state).world.settings)
        }
        group.patch(RouterPath(AdminPath.settings)) { request, context in
            Responses.adminJSON(try await self.scoped(context).state.patchSettings(try await AdminBody.json(request)))
        }
    }
}

extension SettingsController: NamespacedController {}
