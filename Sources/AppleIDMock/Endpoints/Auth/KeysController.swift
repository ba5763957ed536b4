import Hummingbird

/// `GET /auth/keys`: the JWKS published at the mock's current instant.
struct KeysController: Sendable {
    var state: MockState

    /// `GET` and, as `GET` without the body, `HEAD` (what uptime checks and some caches send).
    func addRoutes(to group: RouterGroup<MockRequestContext>) {
        group.get(RouterPath(ApplePath.keys)) { _, context in try await self.scoped(context).keys(context) }
        group.head(RouterPath(ApplePath.keys)) { _, context in try await self.scoped(context).keys(context).createHeadResponse() }
    }

    /// The keys published now, shuffled per response as Apple's are (unless the `jwksOrder` setting
    /// is `stable`).
    private func keys(_ context: MockRequestContext) async throws -> Response {
        let active = try await context.active(in: state)
        return Responses.appleJSON(
            body: active.keys.jwksBody(at: active.now, shuffled: active.world.settings.jwksOrder == .shuffled))
    }
}

extension KeysController: NamespacedController {}
