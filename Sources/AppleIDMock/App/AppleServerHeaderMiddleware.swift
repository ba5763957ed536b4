import Hummingbird

/// Names the server as Apple's does on the answers of Apple's endpoints (`/auth/*` and
/// `/.well-known/*`): `Server: Apple` (reference §2.3). `/health` and the control plane are the
/// mock's own and say nothing.
struct AppleServerHeaderMiddleware: RouterMiddleware {
    typealias Context = MockRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        // By component, as the router matches (`//auth/token` reaches the token endpoint).
        let first = request.uri.path.split(separator: "/", maxSplits: 1).first
        guard first == "auth" || first == ".well-known" else { return try await next(request, context) }
        var response = try await next(request, context)
        response.headers[.server] = "Apple"
        return response
    }
}
