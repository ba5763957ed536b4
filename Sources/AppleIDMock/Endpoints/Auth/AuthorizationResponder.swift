import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Sends an authorization result to the return URL in the requested mode: a `302` with a query or
/// fragment, the auto-submitting `form_post` page, or the `web_message` popup page.
enum AuthorizationResponder {
    static func deliver(_ fields: [(String, String)], for request: AuthorizationRequest) -> Response {
        let encoded = FormParameters.encode(fields)
        switch request.responseMode {
        case .query:
            let separator = request.redirectUri.contains("?") ? "&" : "?"
            return Responses.redirect(to: request.redirectUri + separator + encoded)
        case .fragment:
            return Responses.redirect(to: request.redirectUri + "#" + encoded)
        case .formPost:
            return Responses.html(FormPostPage.render(action: request.redirectUri, fields: fields))
        case .webMessage:
            return Responses.html(
                WebMessagePage.render(
                    message: WebMessage.text(for: fields), targetOrigin: request.postMessageOrigin ?? "null"))
        }
    }

    /// What pressing Cancel sends: `error=user_cancelled_authorize` and the `state`.
    static func cancel(_ request: AuthorizationRequest) -> Response {
        var fields = [("error", "user_cancelled_authorize")]
        if let state = request.state { fields.append(("state", state)) }
        return deliver(fields, for: request)
    }
}
