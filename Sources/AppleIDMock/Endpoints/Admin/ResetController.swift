import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `POST /__admin/reset`: forget consents, codes, tokens, events and notifications, as at start.
struct ResetController: Sendable {
    var state: MockState

    func addRoutes(to group: RouterGroup<MockRequestContext>) {
        group.post(RouterPath(AdminPath.reset)) { _, context in
            try await self.scoped(context).state.reset()
            return Responses.adminJSON(["reset": true])
        }
    }
}

extension ResetController: NamespacedController {}
