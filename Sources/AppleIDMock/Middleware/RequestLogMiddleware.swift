import Hummingbird
import Logging

/// Installed at debug level only (`buildRouter`): logs each request (method, path, query, status, duration) with every secret
/// parameter of the query string shown only as its fingerprint; headers and bodies are never logged.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = MockRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        let query = request.uri.query.map { "?" + Fingerprint.redactingQuery($0) } ?? ""
        logger.debug(
            "request",
            metadata: [
                "hb.request.method": .string(request.method.rawValue),
                "hb.request.path": .string(request.uri.path + query),
                "hb.response.status": "\(response.status.code)",
                "idp.duration": "\(ContinuousClock.now - started)",
            ])
        return response
    }
}
