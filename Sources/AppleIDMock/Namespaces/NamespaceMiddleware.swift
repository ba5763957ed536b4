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
        let state: MockState
        do {
            state = try await NamespaceChoice.other(context.namespaceRequest, group: context.routeGroup, in: namespaces)
        } catch let error where !(error is any HTTPResponseError) {
            return try Self.refusal(error, group: context.routeGroup)
        }
        var world = state
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await answer(request, context: context, in: world, next: next)
            } catch let gone as NamespaceGone {
                // Deleted before or while the request ran: forgotten here unless made anew (another
                // replica or the idle sweep deleted it, or a delete here overtook the request). The
                // control plane answers 404; a page or discovery request is answered again in the
                // world chosen now.
                do {
                    try await namespaces.forgetIfGone(gone.name)
                    if case .controlPlane = context.routeGroup { throw gone }
                    if attempt == Self.attempts { throw gone }
                    world = try await NamespaceChoice.other(
                        context.namespaceRequest, group: context.routeGroup, in: namespaces)
                } catch let error where !(error is any HTTPResponseError) {
                    if let gone = error as? NamespaceGone, let known = AdminErrorMiddleware.response(forKnown: gone) {
                        return AnsweringNamespace.marked(known, answeredIn: world)
                    }
                    return try Self.refusal(error, group: context.routeGroup)
                }
            }
        }
    }

    /// How often a request not of Apple's is answered when its namespace keeps being deleted under
    /// it (then 404, as on the control plane).
    static let attempts = 3

    /// The answer of the rest of the chain in `state`'s world, its due events fired first.
    private func answer(
        _ request: Request, context: Context, in state: MockState, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.world = state
        // A store outage is reported by the handler itself.
        context.active = try? await state.fireDueEvents()
        return AnsweringNamespace.marked(try await next(request, context), answeredIn: state)
    }

    /// A namespace that cannot be made (the limit) or read (a store outage: 503), as the surface
    /// of `group` answers; anything else is thrown on.
    static func refusal(_ error: any Error, group: RouteGroup) throws -> Response {
        if case .controlPlane = group, let known = AdminErrorMiddleware.response(forKnown: error) { return known }
        if let refusal = error as? ControlRefusal {
            return AppleErrorMiddleware.response(
                AppleError("invalid_request", description: refusal.message, reason: refusal.message))
        }
        guard error is StoreUnavailable, let (appleError, status) = AppleErrorMiddleware.appleError(for: error) else {
            throw error
        }
        return AppleErrorMiddleware.response(appleError, status: status)
    }
}
