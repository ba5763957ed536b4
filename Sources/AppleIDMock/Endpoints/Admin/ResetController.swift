import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `POST /__admin/reset`: forget consents, codes, tokens, events and notifications, as at start.
struct ResetController: Sendable {

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.post(RouterPath(AdminPath.reset)) { _, context in
            try await context.world.reset()
            return Responses.adminJSON(["reset": true])
        }
    }
}
