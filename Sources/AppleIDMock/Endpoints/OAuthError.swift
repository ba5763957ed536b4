/// An OAuth error as Apple's `/auth/*` endpoints return it: HTTP 400 with
/// `{"error":"<code>"}` and, where Apple writes one, `"error_description"`.
struct OAuthError: Error, Sendable, Equatable {
    /// The `error` code.
    var code: String
    /// Apple's `error_description`, for the cases where Apple sends one.
    var description: String?
    /// Why we refused, for the server log only (Apple's body stays bare).
    var logReason: String?
    /// The HTTP status: 400, or 503 when the state store is down.
    var httpStatus = 400

    init(_ code: String, description: String? = nil, reason: String? = nil) {
        self.code = code
        self.description = description
        self.logReason = reason ?? description
    }

    /// `invalid_request`, with the reason logged.
    static func invalidRequest(_ reason: String) -> OAuthError {
        OAuthError("invalid_request", reason: reason)
    }

    /// `invalid_client`, with the reason logged.
    static func invalidClient(_ reason: String) -> OAuthError {
        OAuthError("invalid_client", reason: reason)
    }

    /// `invalid_grant` with Apple's description.
    static func invalidGrant(_ description: String?, reason: String? = nil) -> OAuthError {
        OAuthError("invalid_grant", description: description, reason: reason)
    }

    /// `temporarily_unavailable` (HTTP 503) naming why the state store cannot serve the request.
    static func unavailable(_ failure: StoreUnavailable) -> OAuthError {
        var error = OAuthError("temporarily_unavailable", description: failure.description)
        error.httpStatus = 503
        return error
    }

    /// Apple's text for an unknown, expired or revoked code.
    static let codeExpired = invalidGrant("The code has expired or has been revoked.")
    /// Apple's text for a code used twice.
    static let codeUsed = invalidGrant("The code has already been used.")
    /// Apple's text for a refresh token that is unknown, expired or revoked.
    static let tokenRevoked = invalidGrant("The token has expired or has been revoked.")
}
