/// Why the control plane refuses what it was asked: the one refusal that its controllers, the
/// domain rules behind them and its access checks throw. It holds no HTTP: `AdminErrorMiddleware`
/// alone turns each case into the control plane's answer (`{"error": code, "message": …}`).
package enum ControlRefusal: Error, Sendable, Equatable {
    /// Something named does not exist.
    case notFound(String)
    /// It exists, but what was asked does not apply to it (already revoked, being delivered, …).
    case notApplicable(String)
    /// A bounded collection is full.
    case limitReached(String, limit: Int)
    /// The body or a query parameter does not hold up: every problem, each naming its place and reason.
    case invalid([ScenarioError.Problem], omitted: Int = 0)
    /// The call lacks the admin token (or bears a wrong one).
    case unauthorized(String)
    /// A web page open in a browser could have sent it.
    case forbidden(String)
    /// The body is over the control plane's limit of `limit` bytes.
    case tooLarge(limit: Int)
    /// A body sent without a JSON content type (what it declared, if anything).
    case notJSON(found: String?)

    /// One problem in the request body, at `path` (a JSON path).
    package static func invalidBody(_ reason: String, at path: String = "$") -> ControlRefusal {
        .invalid([ScenarioError.Problem(file: "request body", path: path, reason: reason)])
    }

    /// One problem in the query parameter `name`.
    package static func invalidQuery(_ name: String, _ reason: String) -> ControlRefusal {
        .invalid([ScenarioError.Problem(file: "request", path: "?\(name)", reason: reason)])
    }

    /// The problems of a document (a body read by `JSONReader`, or a scenario sent over HTTP).
    package init(_ error: ScenarioError) {
        self = .invalid(error.problems, omitted: error.omitted)
    }

    /// What a person reads.
    package var message: String {
        switch self {
        case .notFound(let message), .notApplicable(let message), .limitReached(let message, _),
            .unauthorized(let message), .forbidden(let message):
            return message
        case .invalid(let problems, let omitted):
            return ScenarioError(problems: problems, omitted: omitted).description
        case .tooLarge(let limit):
            return "the body is over the limit of \(limit) bytes"
        case .notJSON(let found):
            return "send the body as JSON with Content-Type: application/json (found \(found ?? "none"))"
        }
    }
}
