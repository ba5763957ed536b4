import Hummingbird
import Logging

/// The one place where what control-plane handlers throw becomes the control plane's answer
/// (`{"error": code, "message": …}`). Attached to the `/__admin` group; its pure renderer
/// (`response(for:)`) also answers for the access checks and the transport's early refusals:
/// - `ControlRefusal`: 400 `invalid_request` with every problem, 401, 403, 404 `not_found`,
///   409 `not_applicable` or `limit_reached` (with the limit), 413, 415;
/// - `ScenarioError` (a scenario sent over HTTP that does not hold up): 400 with every problem;
/// - `StoreUnavailable`: 503 naming the cause; `NamespaceGone` (the namespace was deleted while the
///   call ran): 404 `not_found`, never a 503;
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
        } catch let gone as NamespaceGone {
            throw gone  // `NamespaceMiddleware` forgets the namespace and answers 404
        } catch {
            if let known = Self.response(forKnown: error) { return known }
            logger.error(
                "unexpected error",
                metadata: [
                    "idp.path": .string(request.uri.path), "hb.request.id": .string(context.id),
                    "error": "\(error)",
                ])
            return Self.response(for: .invalid([.init(file: "request", path: "$", reason: "\(error)")]))
        }
    }

    /// The answer for an error the domain or the store throws; `nil` for an unexpected one.
    static func response(forKnown error: any Error) -> Response? {
        switch error {
        case let refusal as ControlRefusal:
            return response(for: refusal)
        case let error as ScenarioError:
            return response(for: ControlRefusal(error))
        case let failure as StoreUnavailable:
            return AdminAnswer(status: .serviceUnavailable, code: "store_unavailable", message: failure.description)
                .rendered.response
        case let gone as NamespaceGone:
            return response(for: .notFound(gone.description))
        case let error as SessionChanged:
            return response(for: .notApplicable(error.description))
        case let error as AppleError:
            return response(for: .notApplicable(error.logReason ?? error.code))
        default:
            return nil
        }
    }

    /// The control plane's answer for `refusal`.
    static func response(for refusal: ControlRefusal) -> Response {
        answer(for: refusal).response
    }

    /// The control plane's answer for `refusal`, as bytes.
    static func answer(for refusal: ControlRefusal) -> ErrorAnswer {
        AdminAnswer(refusal).rendered
    }

    /// The HTTP status `refusal` is answered with.
    static func status(of refusal: ControlRefusal) -> HTTPResponse.Status {
        AdminAnswer(refusal).status
    }
}

/// The control plane's error answer: a status and `{"error": code, "message": …, "limit"?: …}`
/// (with `problems` for an invalid request).
private struct AdminAnswer {
    var status: HTTPResponse.Status
    /// The machine-readable code.
    var code: String
    var message: String
    /// The limit that was reached, when one was.
    var limit: Int?
    /// Every problem of an invalid request, and how many more there were.
    var problems: [ScenarioError.Problem]?
    var moreProblems: Int?

    init(
        status: HTTPResponse.Status, code: String, message: String, limit: Int? = nil,
        problems: [ScenarioError.Problem]? = nil, moreProblems: Int? = nil
    ) {
        (self.status, self.code, self.message, self.limit) = (status, code, message, limit)
        (self.problems, self.moreProblems) = (problems, moreProblems)
    }

    init(_ refusal: ControlRefusal) {
        let message = refusal.message
        switch refusal {
        case .notFound: self.init(status: .notFound, code: "not_found", message: message)
        case .notApplicable: self.init(status: .conflict, code: "not_applicable", message: message)
        case .limitReached(_, let limit):
            self.init(status: .conflict, code: "limit_reached", message: message, limit: limit)
        case .invalid(let problems, let omitted):
            self.init(
                status: .badRequest, code: "invalid_request", message: message, problems: problems,
                moreProblems: omitted > 0 ? omitted : nil)
        case .unauthorized: self.init(status: .unauthorized, code: "unauthorized", message: message)
        case .forbidden: self.init(status: .forbidden, code: "forbidden", message: message)
        case .tooLarge(let limit):
            self.init(status: .contentTooLarge, code: "payload_too_large", message: message, limit: limit)
        case .notJSON: self.init(status: .unsupportedMediaType, code: "unsupported_media_type", message: message)
        }
    }

    /// The JSON answer.
    var rendered: ErrorAnswer {
        /// The JSON error body.
        struct Body: Encodable {
            var error: String
            var message: String
            var limit: Int?
            /// At most `JSONReader.keptProblems` per document.
            var problems: [ScenarioError.Problem]?
            /// How many more problems there were.
            var moreProblems: Int?
        }
        var headers = Responses.adminJSONHeaders
        if status == .unauthorized { headers[.wwwAuthenticate] = #"Bearer realm="apple-id-mock""# }
        return ErrorAnswer(
            status: status, headers: headers,
            body: Responses.adminJSONBody(
                Body(error: code, message: message, limit: limit, problems: problems, moreProblems: moreProblems)))
    }
}
