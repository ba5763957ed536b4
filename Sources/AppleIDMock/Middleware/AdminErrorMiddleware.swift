import Hummingbird
import Logging

/// The one place where what control-plane handlers throw becomes the control plane's answer
/// (`{"error": code, "message": …}`, see `AdminError`). Attached to the `/__admin` group:
/// - `ScenarioError` (a body or file that does not hold up): 400 with every problem, each naming
///   its JSON path and reason;
/// - `AdminError`: as it says (401, 403, 404, 409, 413, 415, 503);
/// - `LifecycleRefusal`: 404 for something unknown, 409 for an event that does not apply;
/// - `StoreUnavailable`: 503 naming the cause;
/// - `SessionChanged` and `AppleError` (a domain rule refused the change): 409 `not_applicable`;
/// - anything else is a bug or an input nobody foresaw: logged at `error` with the request id and
///   answered 400 naming it, so that bad input never meets a 500.
struct AdminErrorMiddleware: RouterMiddleware {
    typealias Context = MockRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            throw error  // the router's own answers (404)
        } catch {
            return response(for: error, path: request.uri.path, requestId: context.id)
        }
    }

    /// The control plane's answer for `error`.
    private func response(for error: any Error, path: String, requestId: String) -> Response {
        switch error {
        case let error as ScenarioError:
            return AdminError.problemsResponse(error)
        case let error as AdminError:
            return error.response
        case let refusal as LifecycleRefusal:
            return AdminError(refusal).response
        case let failure as StoreUnavailable:
            return AdminError.unavailable(failure).response
        case let error as SessionChanged:
            return AdminError(LifecycleRefusal(kind: .notApplicable, message: error.description)).response
        case let error as AppleError:
            return AdminError(LifecycleRefusal(kind: .notApplicable, message: error.logReason ?? error.code)).response
        default:
            logger.error(
                "unexpected error",
                metadata: ["idp.path": .string(path), "hb.request.id": .string(requestId), "error": "\(error)"])
            return AdminError.problemsResponse(ScenarioError(file: "request", reason: "\(error)"))
        }
    }
}
