import Hummingbird

/// The last line of defence: any error that escapes a handler becomes a 400 in Apple's format
/// (`/auth/*`) or the control plane's, never a 500. Handlers already map their own errors; this
/// catches what they could not foresee.
struct ErrorShieldMiddleware<Context: RequestContext>: RouterMiddleware {
    let services: MockServices

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError where error.status.code < 500 {
            throw error
        } catch let failure as StoreUnavailable {
            if request.uri.path.hasPrefix("/__admin") { return await AdminBody.run { throw failure } }
            return Responses.oauthError(.unavailable(failure))
        } catch {
            services.logger.error(
                "unexpected error", metadata: ["idp.path": .string(request.uri.path), "error": "\(error)"])
            if request.uri.path.hasPrefix("/__admin") {
                return AdminBody.errorResponse(ScenarioError(file: "request", reason: "\(error)"))
            }
            return Responses.oauthError(.invalidRequest("unexpected failure: \(error)"))
        }
    }
}
