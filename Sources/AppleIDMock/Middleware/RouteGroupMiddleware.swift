import Hummingbird

/// Reads the group of every request (`RouteGroup`) once, first thing, into its context, so that
/// the middleware and handlers after it ask the context instead of the path.
struct RouteGroupMiddleware: RouterMiddleware {
    typealias Context = MockRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        context.routeGroup = RouteGroup(path: request.uri.path)
        return try await next(request, context)
    }
}
