import Foundation
import Hummingbird

/// `POST /__admin/reset`: forget consents, codes, tokens, events and notifications, as at start.
struct ResetController: Sendable {
    let state: MockState

    func addRoutes(to group: RouterGroup<MockRequestContext>) {
        group.post(RouterPath(AdminPath.reset)) { _, _ in
            try await state.reset()
            return Responses.adminJSON(["reset": true])
        }
    }
}
