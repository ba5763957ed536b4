import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `/__admin/settings`: the active scenario's settings (`MockSettings.table`), read and patched.
struct SettingsController: Sendable {

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.get(RouterPath(AdminPath.settings)) { _, context in
            Responses.adminJSON(try await context.current().world.settings)
        }
        group.patch(RouterPath(AdminPath.settings)) { request, context in
            Responses.adminJSON(try await context.world.patchSettings(try await AdminBody.json(request)))
        }
    }
}
