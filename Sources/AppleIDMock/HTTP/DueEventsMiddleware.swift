import Hummingbird

/// Applies scheduled lifecycle events that are due on the mock's clock before each request, so a
/// test that moves the clock sees their effect on its very next call, whatever the worker's timing.
struct DueEventsMiddleware<Context: RequestContext>: RouterMiddleware {
    let services: MockServices

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        await services.fireDueEvents()
        return try await next(request, context)
    }
}
