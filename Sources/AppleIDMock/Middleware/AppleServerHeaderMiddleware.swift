import Hummingbird

/// Names the server as Apple's does on the answers of Apple's endpoints (`/auth/*` and discovery,
/// the group it is attached to): `Server: Apple` (reference §2.3). `/health` and the control plane
/// are the mock's own and say nothing.
struct AppleServerHeaderMiddleware: RouterMiddleware {
    typealias Context = MockRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response = try await next(request, context)
        response.headers[.server] = Self.server
        return response
    }

    /// What Apple's answers say in `Server`.
    static let server = "Apple"
}
