import Hummingbird

/// Fires the scenario's scheduled events that are due on the mock's clock before each request, so a
/// request never sees a state the schedule has moved past. Costs nothing when nothing is due.
struct DueEventsMiddleware<Context: RequestContext>: RouterMiddleware {
    let services: MockServices

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        // A store outage is reported by the handler itself.
        try? await services.state.fireDueEvents()
        return try await next(request, context)
    }
}
