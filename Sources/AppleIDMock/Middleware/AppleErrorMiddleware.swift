import Hummingbird
import Logging

/// The one place where what Apple's endpoints throw becomes Apple's answer. Attached to the `/auth`
/// group, inside `AppleCallMiddleware` (so the journal sees the final status):
/// - `AppleError`: HTTP 400 with `{"error": …}` (and `error_description` where Apple writes one),
///   or, on the authorize page, Apple's HTML error page unless the client asked for JSON;
/// - `StoreUnavailable`: HTTP 503 `temporarily_unavailable` naming the cause, always JSON;
/// - `SessionChanged` (resets kept landing while the request ran): `invalid_grant`, since whatever the
///   request named was wiped; `NamespaceGone` (its namespace deleted on every run) likewise;
/// - anything else is a bug or an input nobody foresaw: logged at `error` with the request id, and
///   answered `invalid_request` (HTTP 400), because backends under test handle Apple's error format
///   and Apple documents no 500 for these endpoints.
/// Every refusal is logged at `notice` with its reason, and noted in the request's journal entry.
struct AppleErrorMiddleware: RouterMiddleware {
    typealias Context = MockRequestContext

    /// How the group's endpoints show a refusal.
    enum Answer: Sendable {
        /// Apple's JSON error body.
        case json
        /// Apple's HTML error page (the browser's authorize flow), JSON when the client asks for it.
        case errorPage
    }

    let answer: Answer
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            throw error  // the router's own answers (404)
        } catch let stale as ControlStale {
            throw stale  // `AppleCallMiddleware` runs the call again
        } catch let changed as SessionChanged where context.mayRunAgain {
            throw changed  // the same
        } catch let gone as NamespaceGone where context.mayRunAgain {
            throw gone  // `AppleCallMiddleware` chooses the world again
        } catch {
            let endpoint = context.routeGroup.appleEndpoint ?? ApplePath.group
            let (refusal, status) = classify(error, requestId: context.id, endpoint: endpoint)
            context.journal?.note(refusal: refusal.code, reason: refusal.logReason ?? refusal.description)
            logger.notice(
                "request refused",
                metadata: [
                    "idp.endpoint": .string(endpoint), "idp.error": .string(refusal.code),
                    "idp.reason": .string(refusal.logReason ?? refusal.code),
                ])
            let wantsJSON = request.headers[.accept]?.contains("application/json") == true
            return Self.response(
                refusal, status: status, page: answer == .errorPage && status == .badRequest && !wantsJSON)
        }
    }

    /// Apple's error and the HTTP status for an error the domain throws; `nil` for an unexpected one.
    static func appleError(for error: any Error) -> (AppleError, HTTPResponse.Status)? {
        switch error {
        case let error as AppleError:
            return (error, .badRequest)
        case let failure as StoreUnavailable:
            return (AppleError("temporarily_unavailable", description: failure.description), .serviceUnavailable)
        case let gone as NamespaceGone:
            // Deleted on every rerun: whatever the request named went with it.
            return (.invalidGrant(nil, reason: gone.description), .badRequest)
        case is SessionChanged:
            // Resets kept landing on every rerun: whatever the request named was wiped.
            return (
                .invalidGrant(nil, reason: "the scenario was reset or switched while this request ran"), .badRequest
            )
        default:
            return nil
        }
    }

    /// Apple's error and the HTTP status for `error`, an unexpected one logged at `error`.
    private func classify(_ error: any Error, requestId: String, endpoint: String) -> (AppleError, HTTPResponse.Status)
    {
        if let known = Self.appleError(for: error) { return known }
        logger.error(
            "unexpected error",
            metadata: [
                "idp.endpoint": .string(endpoint), "hb.request.id": .string(requestId), "error": "\(error)",
            ])
        return (.invalidRequest("unexpected failure (request \(requestId)): \(error)"), .badRequest)
    }

    /// Apple's answer for `error`: the JSON body, or the authorize flow's error page.
    static func response(_ error: AppleError, status: HTTPResponse.Status = .badRequest, page: Bool = false)
        -> Response
    {
        if page { return Responses.html(AuthorizeErrorPage.render(error), status: status) }
        return answer(error, status: status).response
    }

    /// Apple's JSON answer for `error`, as bytes.
    static func answer(_ error: AppleError, status: HTTPResponse.Status = .badRequest) -> ErrorAnswer {
        ErrorAnswer(
            status: status, headers: Responses.appleJSONHeaders,
            body: Responses.encodedJSON(AppleErrorBody(error: error.code, errorDescription: error.description)))
    }
}

/// Apple's error body.
private struct AppleErrorBody: Encodable {
    var error: String
    var errorDescription: String?

    /// The JSON names of the fields.
    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
    }
}
