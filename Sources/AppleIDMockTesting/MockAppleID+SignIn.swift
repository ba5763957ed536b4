import AppleIDMock

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MockAppleID {
    /// A scope the user consents to share.
    public enum Scope: String, Sendable, CaseIterable {
        case name
        case email
    }

    /// What a web sign-in posts to the app's redirect URI (`response_mode=form_post`).
    public struct WebSignIn: Sendable {
        /// The authorization code, for the backend to exchange at `/auth/token`.
        public var code: String
        /// The identity token of the authorization response.
        public var idToken: String
        /// The `state` sent, echoed.
        public var state: String
        /// The `user` JSON (name and email): Apple sends it on the first authorization only.
        public var user: String?
    }

    /// Signs `user` (a scenario user's key, email or `sub`) in to the web client `clientId` as a
    /// browser would, without the consent page, and returns what Apple posts to `redirectURI`.
    public func signInWeb(
        _ user: String, clientId: String, redirectURI: String, scopes: [Scope] = [.name, .email],
        nonce: String? = nil, state: String = "state-\(UUID().uuidString.prefix(8))"
    ) async throws -> WebSignIn {
        var query: [(String, String)] = [
            ("client_id", clientId), ("redirect_uri", redirectURI), ("response_type", "code id_token"),
            ("response_mode", "form_post"), ("state", state), ("login_hint", user),
        ]
        if !scopes.isEmpty { query.append(("scope", scopes.map(\.rawValue).joined(separator: " "))) }
        if let nonce { query.append(("nonce", nonce)) }
        let path = ApplePath.absolute(ApplePath.authorize) + "?" + FormParameters.encode(query)
        let answer = try await send(.get, path)
        let fields = HiddenFields.parse(answer.body)
        guard answer.status == 200, let code = fields["code"], let idToken = fields["id_token"] else {
            throw MockAppleIDError.unexpectedAnswer(
                path: ApplePath.absolute(ApplePath.authorize), status: answer.status, body: answer.body)
        }
        return WebSignIn(code: code, idToken: idToken, state: fields["state"] ?? "", user: fields["user"])
    }

    /// What `ASAuthorizationAppleIDCredential` holds after a native sign-in.
    public struct NativeCredential: Sendable, Decodable {
        /// The team-scoped user id (`sub`).
        public var user: String
        /// The authorization code, for the backend to exchange.
        public var authorizationCode: String
        /// The identity token.
        public var identityToken: String
        /// The scopes granted: empty after the first authorization.
        public var authorizedScopes: [String]
        /// The email: only on the first authorization.
        public var email: String?
        /// The name: only on the first authorization with the name scope.
        public var fullName: Name?
        /// 0 unsupported, 1 unknown, 2 likely real.
        public var realUserStatus: Int
        /// The `state` passed, if any.
        public var state: String?

        /// A person's name as the credential gives it.
        public struct Name: Sendable, Decodable {
            public var givenName: String?
            public var familyName: String?
        }
    }

    /// Signs `user` in on a device to the app `bundleId`, as `ASAuthorizationAppleIDProvider` would.
    public func signInNative(
        _ user: String, bundleId: String, scopes: [Scope] = [.name, .email], nonce: String? = nil
    ) async throws -> NativeCredential {
        struct Order: Encodable {
            var clientId: String
            var user: String
            var scopes: [String]
            var nonce: String?
        }
        let order = Order(clientId: bundleId, user: user, scopes: scopes.map(\.rawValue), nonce: nonce)
        return try await call(
            .post, AdminPath.absolute(AdminPath.nativeAuthorize), json: order, as: NativeCredential.self)
    }

    /// Upgrades `user`'s existing password account in the app `bundleId` to Sign in with Apple, as an
    /// account modification extension's `getSignInWithAppleUpgradeAuthorization(state:nonce:)` would:
    /// no scopes, so no email or name in the credential; `state` and `nonce` come back as sent.
    public func upgradeNative(
        _ user: String, bundleId: String, state: String? = nil, nonce: String? = nil
    ) async throws -> NativeCredential {
        struct Order: Encodable {
            var flow = "upgrade"
            var clientId: String
            var user: String
            var state: String?
            var nonce: String?
        }
        let order = Order(clientId: bundleId, user: user, state: state, nonce: nonce)
        return try await call(
            .post, AdminPath.absolute(AdminPath.nativeAuthorize), json: order, as: NativeCredential.self)
    }

    /// A valid `client_secret` for `clientId` (ES256, signed with the bundled developer key of its
    /// team), good for `lifetime` on the mock's clock.
    public func clientSecret(for clientId: String, lifetime: Duration = .seconds(3600)) async throws -> String {
        struct Order: Encodable {
            var clientId: String
            var lifetimeSeconds: Int
        }
        struct Made: Decodable { var clientSecret: String }
        let order = Order(
            clientId: clientId, lifetimeSeconds: try Self.wholeSeconds(lifetime, "clientSecret(for:lifetime:)"))
        return try await call(.post, AdminPath.absolute(AdminPath.clientSecret), json: order, as: Made.self)
            .clientSecret
    }

    /// The answer of `/auth/token`.
    public struct TokenResponse: Sendable, Decodable {
        public var accessToken: String
        public var tokenType: String
        public var expiresIn: Int
        public var refreshToken: String?
        public var idToken: String?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case tokenType = "token_type"
            case expiresIn = "expires_in"
            case refreshToken = "refresh_token"
            case idToken = "id_token"
        }
    }

    /// Exchanges `code` at `/auth/token` as a backend does (a client secret is made for it).
    public func exchange(code: String, clientId: String, redirectURI: String? = nil) async throws -> TokenResponse {
        var form = [
            ("grant_type", "authorization_code"), ("client_id", clientId),
            ("client_secret", try await clientSecret(for: clientId)), ("code", code),
        ]
        if let redirectURI { form.append(("redirect_uri", redirectURI)) }
        return try await succeeding(.post, ApplePath.absolute(ApplePath.token), body: .form(form)).decode(
            TokenResponse.self)
    }

    /// Uses `refreshToken` at `/auth/token` as a backend does (Apple sends no new refresh token).
    public func refresh(_ refreshToken: String, clientId: String) async throws -> TokenResponse {
        let form = [
            ("grant_type", "refresh_token"), ("client_id", clientId),
            ("client_secret", try await clientSecret(for: clientId)), ("refresh_token", refreshToken),
        ]
        return try await succeeding(.post, ApplePath.absolute(ApplePath.token), body: .form(form)).decode(
            TokenResponse.self)
    }

    /// Revokes a refresh or access token at `/auth/revoke` as a backend does (Apple answers 200 even
    /// for a token it does not know).
    public func revoke(_ token: String, clientId: String) async throws {
        let form = [
            ("client_id", clientId), ("client_secret", try await clientSecret(for: clientId)), ("token", token),
        ]
        try await succeeding(.post, ApplePath.absolute(ApplePath.revoke), body: .form(form))
    }

    /// The JWKS the mock publishes at `/auth/keys`, as JSON text.
    public func keys() async throws -> String {
        try await send(.get, ApplePath.absolute(ApplePath.keys)).body
    }
}

/// The hidden inputs of a `form_post` page, unescaped.
enum HiddenFields {
    static func parse(_ html: String) -> [String: String] {
        var fields: [String: String] = [:]
        var rest = html[...]
        while let start = rest.range(of: #"<input type="hidden" name=""#) {
            rest = rest[start.upperBound...]
            guard let nameEnd = rest.firstIndex(of: "\"") else { break }
            let name = String(rest[..<nameEnd])
            rest = rest[nameEnd...]
            guard let valueStart = rest.range(of: #" value=""#),
                let valueEnd = rest[valueStart.upperBound...].firstIndex(of: "\"")
            else { break }
            fields[unescape(name)] = unescape(String(rest[valueStart.upperBound..<valueEnd]))
            rest = rest[valueEnd...]
        }
        return fields
    }

    private static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
