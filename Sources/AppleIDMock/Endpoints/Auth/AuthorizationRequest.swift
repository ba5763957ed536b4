#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A checked `/auth/authorize` request (reference §1.1). Parsing applies Apple's rules in order and
/// fails with the error Apple's page shows.
struct AuthorizationRequest: Sendable {
    /// How the result travels back to the return URL.
    enum ResponseMode: String, Sendable {
        case query, fragment
        case formPost = "form_post"
        /// Sign in with Apple JS's popup: the result page posts it to `window.opener`.
        case webMessage = "web_message"
    }

    /// The Services ID.
    var client: World.Client
    /// The registered return URL.
    var redirectUri: String
    /// Whether `id_token` was requested beside `code`.
    var wantsIdToken: Bool
    /// Where the result goes.
    var responseMode: ResponseMode
    /// `name` / `email` requested (`openid` is tolerated and dropped).
    var scopes: [String]
    var state: String?
    var nonce: String?
    var codeChallenge: String?
    var codeChallengeMethod: String?
    /// Our extension: a user key or email that consents without the page.
    var loginHint: String?
    /// The request's own parameters, carried through the consent page unchanged.
    var parameters: [(String, String)]

    /// The parameter names this server reads; the consent page carries exactly these.
    static let parameterNames = [
        "client_id", "redirect_uri", "response_type", "response_mode", "scope", "state", "nonce", "code_challenge",
        "code_challenge_method", "login_hint", "frame_id", "m", "v",
    ]

    /// Checks `form` against `world` (and its settings), in Apple's order; `alsoRegistered` are
    /// return URLs taken as registered for the client besides the scenario's (a conformance run
    /// registers the one its backend sends).
    static func parse(_ form: FormParameters, world: World, alsoRegistered: [String] = []) throws(AppleError)
        -> AuthorizationRequest
    {
        if let duplicate = form.firstDuplicate {
            throw AppleError(
                "invalid_request", description: "Invalid request.",
                reason: "parameter \(duplicate) was sent more than once")
        }
        guard let clientId = try form.field("client_id") else {
            throw AppleError("invalid_client", reason: "client_id is missing")
        }
        guard let client = world.clients[clientId] else {
            throw AppleError(
                "invalid_client", reason: "no client \"\(clientId)\" in scenario \"\(world.scenario.name)\"")
        }
        guard case .services(let registered) = client.kind else {
            throw AppleError(
                "invalid_client",
                reason: "\(clientId) is an App ID (native sign-in); web sign-in needs a Services ID of its app group")
        }
        let redirectUri = try checkRedirect(
            try form.field("redirect_uri"), registered: registered + alsoRegistered, settings: world.settings)
        let wantsIdToken = try responseType(try form.field("response_type"))
        let mode = try responseMode(try form.field("response_mode"), wantsIdToken: wantsIdToken)
        let scopes = try scopes(try form.field("scope"), mode: mode)
        if mode == .webMessage { try checkWebMessageTarget(redirectUri) }
        let (challenge, method) = try pkce(try form.field("code_challenge"), try form.field("code_challenge_method"))
        return AuthorizationRequest(
            client: client, redirectUri: redirectUri, wantsIdToken: wantsIdToken, responseMode: mode, scopes: scopes,
            state: try form.field("state", allowEmpty: true), nonce: try form.field("nonce"), codeChallenge: challenge,
            codeChallengeMethod: method, loginHint: try form.field("login_hint"),
            parameters: form.pairs.filter { parameterNames.contains($0.name) }.map { ($0.name, $0.value) })
    }

    private static func invalid(_ message: String, _ reason: String? = nil) -> AppleError {
        AppleError("invalid_request", description: message, reason: reason ?? message)
    }

    private static func checkRedirect(_ uri: String?, registered: [String], settings: MockSettings) throws(AppleError)
        -> String
    {
        guard let uri else { throw invalid("Invalid web redirect url.", "redirect_uri is missing") }
        guard registered.contains(uri) else {
            throw invalid(
                "Invalid web redirect url.",
                "redirect_uri \(uri) is not registered; registered: \(registered.joined(separator: ", "))")
        }
        if settings.requireHttpsRedirectUris {
            let url = URL(string: uri)
            let host = url?.host ?? ""
            let isIP = host.allSatisfy { $0.isNumber || $0 == "." } || host.contains(":")
            guard url?.scheme == "https", !isIP, host != "localhost", host.contains(".") else {
                throw invalid(
                    "Invalid web redirect url.", "requireHttpsRedirectUris: \(uri) is not https with a domain name")
            }
        }
        return uri
    }

    private static func responseType(_ value: String?) throws(AppleError) -> Bool {
        let parts = Set((value ?? "").split(separator: " ").map(String.init))
        switch parts {
        case ["code"]: return false
        case ["code", "id_token"]: return true
        default:
            throw AppleError(
                "unsupported_response_type",
                reason: "response_type must be \"code\" or \"code id_token\", found \"\(value ?? "")\"")
        }
    }

    private static func responseMode(_ value: String?, wantsIdToken: Bool) throws(AppleError) -> ResponseMode {
        guard let mode = ResponseMode(rawValue: value ?? "query") else {  // query is Apple's default
            throw invalid(
                "Invalid response mode",
                "response_mode \"\(value ?? "")\" is not query, fragment, form_post or web_message")
        }
        if wantsIdToken && mode == .query {
            throw invalid("Invalid response mode", "id_token is never sent by query: use fragment or form_post")
        }
        return mode
    }

    private static func scopes(_ value: String?, mode: ResponseMode) throws(AppleError) -> [String] {
        let requested = (value ?? "").split(whereSeparator: { $0 == " " || $0 == "+" }).map(String.init)
        for scope in requested where !["name", "email", "openid"].contains(scope) {
            throw invalid("Invalid client scope", "scope \"\(scope)\" is not name, email or openid")
        }
        let granted = requested.filter { $0 != "openid" }
        if !granted.isEmpty && mode != .formPost && mode != .webMessage {
            throw invalid("response_mode must be form_post when name or email scope is requested.")
        }
        return Array(Set(granted)).sorted()
    }

    private static func pkce(_ challenge: String?, _ method: String?) throws(AppleError) -> (String?, String?) {
        guard let challenge else {
            if method != nil { throw invalid("Invalid request.", "code_challenge_method without code_challenge") }
            return (nil, nil)
        }
        let method = method ?? "plain"
        guard method == "S256" || method == "plain" else {
            throw invalid("Invalid request.", "code_challenge_method must be S256 or plain")
        }
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        guard (43...128).contains(challenge.count), challenge.allSatisfy(allowed.contains) else {
            throw invalid("Invalid request.", "code_challenge must be 43 to 128 unreserved characters")
        }
        return (challenge, method)
    }
}
