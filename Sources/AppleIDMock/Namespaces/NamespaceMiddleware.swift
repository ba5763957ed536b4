import Hummingbird

/// Chooses the world of every request that is not one of Apple's calls (`NamespaceChoice.other`;
/// `AppleCallMiddleware` chooses for those once it read the call), then fires the scheduled events
/// that are due on that world's clock before the request, so a request never sees a state the
/// schedule has moved past, and hands the state then in force to the rest of the request.
struct NamespaceMiddleware: RouterMiddleware {
    typealias Context = MockRequestContext
    let namespaces: Namespaces

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard !context.routeGroup.isAppleCall else { return try await next(request, context) }
        var context = context
        let state: MockState
        do {
            state = try await NamespaceChoice.other(context.namespaceRequest, group: context.routeGroup, in: namespaces)
        } catch let refusal as ControlRefusal {
            return Self.refusal(refusal, group: context.routeGroup)
        }
        context.state = state
        // A store outage is reported by the handler itself.
        context.active = try? await state.fireDueEvents()
        return try await next(request, context)
    }

    /// A namespace that cannot be made (the limit), as the surface of `group` answers.
    static func refusal(_ refusal: ControlRefusal, group: RouteGroup) -> Response {
        if case .controlPlane = group { return AdminErrorMiddleware.response(for: refusal) }
        return AppleErrorMiddleware.response(
            AppleError("invalid_request", description: refusal.message, reason: refusal.message))
    }
}
