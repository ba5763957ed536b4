import Hummingbird

/// `GET /auth/keys`: the JWKS published at the mock's current instant.
struct KeysController: Sendable {
    /// Every namespace: without a namespace named, the JWKS holds every namespace's published keys.
    let namespaces: Namespaces

    /// `GET` and, as `GET` without the body, `HEAD` (what uptime checks and some caches send).
    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.get(RouterPath(ApplePath.keys)) { _, context in try await self.keys(context) }
        group.head(RouterPath(ApplePath.keys)) { _, context in try await self.keys(context).createHeadResponse() }
    }

    /// The keys published now, shuffled per response as Apple's are (unless the `jwksOrder` setting
    /// is `stable`).
    /// Without a namespace named (prefix or header), every namespace's published keys: a backend
    /// that keeps Apple's URL verifies a token from any namespace.
    private func keys(_ context: WorldRequestContext) async throws -> Response {
        let state = context.world
        let active = try await context.current()
        let shuffled = active.world.settings.jwksOrder == .shuffled
        guard context.namespaceRequest.explicit == nil, state.scope.isDefault, state.directory.hasNamespaces else {
            return Responses.appleJSON(body: active.keys.jwksBody(at: active.now, shuffled: shuffled))
        }
        let everywhere = try await namespaces.publishedEverywhere(home: active)
        return Responses.appleJSON(body: everywhere.jwksBody(at: active.now, shuffled: shuffled))
    }
}
