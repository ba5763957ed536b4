/// A refusal in Apple's vocabulary (`invalid_request`, `invalid_client`, `invalid_grant` …), as the
/// domain throws it. It knows nothing of HTTP: `AppleErrorMiddleware` turns it into Apple's answer
/// (HTTP 400 with `{"error":"<code>"}` and, where Apple writes one, `"error_description"`, or the
/// authorize page's error page).
struct AppleError: Error, Sendable, Equatable {
    /// The `error` code.
    var code: String
    /// Apple's `error_description`, for the cases where Apple sends one.
    var description: String?
    /// Why we refused, for the server log and the journal only (Apple's body stays bare).
    var logReason: String?

    init(_ code: String, description: String? = nil, reason: String? = nil) {
        self.code = code
        self.description = description
        self.logReason = reason ?? description
    }

    /// `invalid_request`, with the reason logged.
    static func invalidRequest(_ reason: String) -> AppleError {
        AppleError("invalid_request", reason: reason)
    }

    /// `invalid_client`, with the reason logged.
    static func invalidClient(_ reason: String) -> AppleError {
        AppleError("invalid_client", reason: reason)
    }

    /// `invalid_grant` with Apple's description.
    static func invalidGrant(_ description: String?, reason: String? = nil) -> AppleError {
        AppleError("invalid_grant", description: description, reason: reason)
    }

    /// Apple's text for an unknown, expired or revoked code.
    static let codeExpired = invalidGrant("The code has expired or has been revoked.")
    /// Apple's text for a code used twice.
    static let codeUsed = invalidGrant("The code has already been used.")
    /// Apple's text for a refresh token that is unknown, expired or revoked.
    static let tokenRevoked = invalidGrant("The token has expired or has been revoked.")
}
