import Hummingbird

/// The control plane's error, as its answers carry it. A refusal that is not about a field of the body: a missing admin token (401), a
/// request a browser tab could have forged (403), a body too large (413) or not JSON (415), a limit
/// reached (409), something unknown (404) or not applicable (409), the store down (503). Answered as `{"error": code, "message": …, "limit"?: …}`.
struct AdminError: Error, Sendable {
    var status: HTTPResponse.Status
    /// The machine-readable code.
    var code: String
    var message: String
    /// The limit that was reached, when one was.
    var limit: Int?

    /// 401 without (or with a wrong) admin token.
    static func unauthorized(_ message: String) -> AdminError {
        AdminError(status: .unauthorized, code: "unauthorized", message: message)
    }

    /// 403 for a request a web page could have sent.
    static func forbidden(_ message: String) -> AdminError {
        AdminError(status: .forbidden, code: "forbidden", message: message)
    }

    /// 413 for a body over `limit` bytes.
    static func tooLarge(limit: Int) -> AdminError {
        AdminError(
            status: .contentTooLarge, code: "payload_too_large",
            message: "the body is over the limit of \(limit) bytes", limit: limit)
    }

    /// 409 when a collection is full.
    static func full(_ message: String, limit: Int) -> AdminError {
        AdminError(status: .conflict, code: "limit_reached", message: message, limit: limit)
    }

    /// 503 while the state store cannot be reached.
    static func unavailable(_ failure: StoreUnavailable) -> AdminError {
        AdminError(status: .serviceUnavailable, code: "store_unavailable", message: failure.description)
    }

    /// The JSON answer.
    var response: Response {
        /// The JSON error body.
        struct Body: Encodable {
            var error: String
            var message: String
            var limit: Int?
        }
        var response = Responses.adminJSON(Body(error: code, message: message, limit: limit), status: status)
        if status == .unauthorized { response.headers[.wwwAuthenticate] = #"Bearer realm="apple-id-mock""# }
        return response
    }
}

extension AdminError {
    /// 404 (`not_found`) or 409 (`not_applicable`) with the reason (an extension, so that the
    /// memberwise initializer stays).
    init(_ refusal: LifecycleRefusal) {
        switch refusal.kind {
        case .notFound: self.init(status: .notFound, code: "not_found", message: refusal.message)
        case .notApplicable: self.init(status: .conflict, code: "not_applicable", message: refusal.message)
        }
    }
}

extension AdminError {
    /// The answer for a body or file that does not hold up: HTTP 400 with every problem.
    static func problemsResponse(_ error: ScenarioError) -> Response {
        /// The JSON error body.
        struct Body: Encodable {
            var error = "invalid_request"
            var message: String
            /// At most `JSONReader.keptProblems` per document.
            var problems: [ScenarioError.Problem]
            /// How many more problems there were.
            var moreProblems: Int?
        }
        return Responses.adminJSON(
            Body(
                message: error.description, problems: error.problems,
                moreProblems: error.omitted > 0 ? error.omitted : nil),
            status: .badRequest)
    }
}
