import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// `/auth/authorize`: Apple's parameter rules, the consent page, and delivery by every mode.
@Suite("Authorize")
struct AuthorizeRouterTests {
    static let base = [
        ("client_id", Fixture.webClient), ("redirect_uri", Fixture.redirect), ("response_type", "code"),
    ]

    static func replacing(_ name: String, with value: String?) -> [(String, String)] {
        var pairs = base.filter { $0.0 != name }
        if let value { pairs.append((name, value)) }
        return pairs
    }

    /// Each misconfiguration gets Apple's error page (HTTP 400) and never a redirect.
    @Test(
        "configuration errors show Apple's error page",
        arguments: [
            (replacing("client_id", with: "com.unknown"), "invalid_client", nil),
            (replacing("client_id", with: nil), "invalid_client", nil),
            (replacing("client_id", with: Fixture.appClient), "invalid_client", nil),
            (
                replacing("redirect_uri", with: "https://evil.example/cb"), "invalid_request",
                "Invalid web redirect url."
            ),
            (replacing("redirect_uri", with: nil), "invalid_request", "Invalid web redirect url."),
            (replacing("response_type", with: "id_token"), "unsupported_response_type", nil),
            (replacing("response_type", with: "code id_token"), "invalid_request", "Invalid response mode"),
            (base + [("response_mode", "popup")], "invalid_request", "Invalid response mode"),
            (
                base + [("scope", "name email")], "invalid_request",
                "response_mode must be form_post when name or email scope is requested."
            ),
            (
                base + [("response_mode", "form_post"), ("scope", "openid profile")], "invalid_request",
                "Invalid client scope"
            ),
            (base + [("state", "a"), ("state", "b")], "invalid_request", nil),
            (base + [("code_challenge", "short")], "invalid_request", "Invalid request."),
        ] as [([(String, String)], String, String?)])
    func errorPage(pairs: [(String, String)], error: String, message: String?) async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let response = try await client.authorize(pairs)
            #expect(response.status == .badRequest)
            #expect(response.headers[.location] == nil)
            #expect(response.text.contains("<strong id=\"error\">\(error)</strong>"))
            if let message { #expect(response.text.contains(message.htmlSafe)) }
            let json = try await client.authorize(pairs, headers: [.accept: "application/json"])
            #expect(json.status == .badRequest)
            #expect(json.json["error"] as? String == error)
        }
    }

    @Test("without login_hint the consent page lists the users and carries the request")
    func consentPage() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let response = try await client.authorize(
                Self.base + [("response_mode", "form_post"), ("scope", "email"), ("state", "s")])
            #expect(response.status == .ok)
            #expect(response.text.contains("value=\"maria\"") && response.text.contains("value=\"sam\""))
            #expect(response.text.contains("Hide My Email"))
            let hidden = Fixture.hiddenFields(response.text)
            #expect(hidden["client_id"] == Fixture.webClient && hidden["state"] == "s")
        }
    }

    @Test("the consent form continues as the chosen user with the chosen email, or cancels")
    func consentSubmit() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let request = Self.base + [("response_mode", "form_post"), ("scope", "name email"), ("state", "s1")]
        try await app.test(.router) { client in
            let cancelled = try await client.postForm("/auth/authorize/consent", request + [("mock_action", "cancel")])
            let cancelFields = Fixture.hiddenFields(cancelled.text)
            #expect(cancelFields == ["error": "user_cancelled_authorize", "state": "s1"])

            let chosen = try await client.postForm(
                "/auth/authorize/consent",
                request + [("mock_user", "maria"), ("mock_email", "hide"), ("mock_action", "continue")])
            let fields = Fixture.hiddenFields(chosen.text)
            #expect(fields["code"]?.hasPrefix("c") == true)
            let user = try #require(fields["user"])
            #expect(user.contains("@privaterelay.appleid.com") && user.contains("\"firstName\":\"Maria\""))

            let tampered = try await client.postForm(
                "/auth/authorize/consent",
                [
                    ("client_id", Fixture.webClient), ("redirect_uri", "https://evil.example/"),
                    ("response_type", "code"),
                    ("mock_user", "maria"), ("mock_action", "continue"),
                ])
            #expect(tampered.status == .badRequest)
        }
    }

    @Test("query mode redirects with code and state only")
    func queryMode() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let response = try await client.authorize(Self.base + [("state", "s 1"), ("login_hint", "maria")])
            #expect(response.status == .found)
            let location = try #require(response.headers[.location])
            #expect(location.hasPrefix(Fixture.redirect + "?"))
            let parameters = Fixture.parameters(ofLocation: location, separator: "?")
            #expect(Set(parameters.keys) == ["code", "state"])
            #expect(parameters["state"] == "s 1")
            #expect(parameters["code"]?.wholeMatch(of: /c[0-9a-f]{32}\.0\.[a-z]{4}\.[A-Za-z0-9_-]{22}/) != nil)
        }
    }

    @Test("fragment mode carries the id_token with c_hash and the nonce verbatim")
    func fragmentMode() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let response = try await client.authorize(
                Self.replacing("response_type", with: "code id_token")
                    + [("response_mode", "fragment"), ("nonce", "N+/=ü"), ("login_hint", "Maria.Ruiz@EXAMPLE.org")])
            let location = try #require(response.headers[.location])
            let parameters = Fixture.parameters(ofLocation: location, separator: "#")
            let token = try #require(parameters["id_token"])
            let claims = Fixture.claims(of: token)
            #expect(Fixture.header(of: token).keys.sorted() == ["alg", "kid"])
            #expect(claims["nonce"] as? String == "N+/=ü")
            #expect(claims["c_hash"] as? String == IdentityTokenClaims.halfHash(parameters["code"] ?? ""))
            #expect(claims["aud"] as? String == Fixture.webClient)
            #expect(claims["nonce_supported"] as? Bool == true)
            #expect(claims["real_user_status"] == nil)  // never for web
            #expect(claims["email"] == nil)  // no email scope
        }
    }

    @Test("user JSON comes only with the first authorization, and scopes are frozen at first consent")
    func firstAuthorizationOnly() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let first = try await client.signIn("maria", scope: "name")
            #expect(first["user"] == #"{"name":{"firstName":"Maria","lastName":"Ruiz"}}"#)
            let second = try await client.signIn("maria", scope: "name email")
            #expect(second["user"] == nil)
            // Email was not granted at first consent, so later requests for it change nothing.
            #expect(Fixture.claims(of: second["id_token"] ?? "")["email"] == nil)
            let other = try await client.signIn("sam", scope: "email")
            #expect(other["user"]?.contains("@privaterelay.appleid.com") == true)
        }
    }

    @Test("POST /auth/authorize reads the form body")
    func postAuthorize() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let response = try await client.postForm("/auth/authorize", Self.base + [("login_hint", "alex")])
            #expect(response.status == .found)
        }
    }

    @Test("an unknown login_hint is an error page, not a redirect")
    func unknownHint() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let response = try await client.authorize(Self.base + [("login_hint", "nobody")])
            #expect(response.status == .badRequest)
            #expect(response.text.contains("login_hint"))
        }
    }
}

extension String {
    /// The text as the pages escape it.
    fileprivate var htmlSafe: String {
        replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
