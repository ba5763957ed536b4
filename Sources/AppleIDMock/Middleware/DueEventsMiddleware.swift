import Hummingbird

/// Fires the scenario's scheduled events that are due on the mock's clock before each request, so a
/// request never sees a state the schedule has moved past, and hands the state then in force to
/// the rest of the request (one read of the control record per request).
struct DueEventsMiddleware: RouterMiddleware {
    typealias Context = MockRequestContext
    let state: MockState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        // A store outage is reported by the handler itself.
        var context = context
        context.active = try? await state.fireDueEvents()
        return try await next(request, context)
    }
}
