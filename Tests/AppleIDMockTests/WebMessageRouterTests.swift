import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// `response_mode=web_message` (Sign in with Apple JS's popup): the page that posts
/// `{"method":"oauthDone",…}` to `window.opener`, Apple's rules for it, and Cancel.
@Suite("Web message")
struct WebMessageRouterTests {
    /// What Sign in with Apple JS sends in popup mode (reference §15).
    static let popup = [
        ("client_id", Fixture.webClient), ("redirect_uri", Fixture.redirect), ("response_type", "code id_token"),
        ("state", "st-1"), ("scope", "name email"), ("nonce", "n-1"), ("response_mode", "web_message"),
        ("frame_id", "0c9b3f4e-6a53-4f0e-9d5e-4bb1c0f5c1aa"), ("m", "12"), ("v", "1.5.6"),
    ]

    /// The page's `data-` attribute `name`, HTML-unescaped.
    static func attribute(_ name: String, in html: String) -> String? {
        guard let start = html.range(of: "\(name)=\"") else { return nil }
        guard let end = html[start.upperBound...].firstIndex(of: "\"") else { return nil }
        return String(html[start.upperBound..<end]).replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The message of a result page, parsed as the SDK parses it.
    static func message(_ html: String) throws -> [String: Any] {
        let text = try #require(attribute("data-message", in: html))
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test(
        "the popup page posts oauthDone with the authorization and, the first time, the user, to the return URL's origin"
    )
    func firstAndSecondAuthorization() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let first = try await client.authorize(Self.popup + [("login_hint", "maria")])
            #expect(first.status == .ok)
            #expect(first.headers[.contentType] == "text/html; charset=utf-8")
            #expect(first.headers[.location] == nil)
            #expect(Self.attribute("data-target-origin", in: first.text) == "http://localhost:3000")
            #expect(first.text.contains("window.opener.postMessage("))
            let message = try Self.message(first.text)
            #expect(message["method"] as? String == "oauthDone")
            let data = try #require(message["data"] as? [String: Any])
            let authorization = try #require(data["authorization"] as? [String: Any])
            #expect((authorization["code"] as? String)?.hasPrefix("c") == true)
            #expect(authorization["state"] as? String == "st-1")
            let idToken = try #require(authorization["id_token"] as? String)
            #expect(Fixture.claims(of: idToken)["nonce"] as? String == "n-1")
            #expect(Fixture.claims(of: idToken)["iss"] as? String == "https://appleid.apple.com")
            let user = try #require(data["user"] as? [String: Any])
            #expect(user["email"] as? String == "maria.ruiz@example.org")
            #expect((user["name"] as? [String: Any])?["firstName"] as? String == "Maria")
            // The message's field order is Apple's: method, then data with authorization first.
            let text = try #require(Self.attribute("data-message", in: first.text))
            #expect(text.hasPrefix(#"{"method":"oauthDone","data":{"authorization":{"code":"#))

            let second = try Self.message(try await client.authorize(Self.popup + [("login_hint", "maria")]).text)
            let secondData = try #require(second["data"] as? [String: Any])
            #expect(secondData["user"] == nil)
            #expect(secondData["authorization"] != nil)
        }
    }

    @Test("the popup's code is exchanged at /auth/token like any other")
    func codeExchanges() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let page = try await client.authorize(Self.popup + [("login_hint", "sam")])
            let data = try #require(try Self.message(page.text)["data"] as? [String: Any])
            let code = try #require((data["authorization"] as? [String: Any])?["code"] as? String)
            let token = try await client.exchange(code: code, secret: try await Fixture.secret())
            #expect(token.status == .ok)
            #expect(token.json["id_token"] is String)
        }
    }

    @Test("without login_hint the consent page carries frame_id, m and v; Cancel posts user_cancelled_authorize")
    func consentAndCancel() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let consent = try await client.authorize(Self.popup)
            #expect(consent.status == .ok)
            let hidden = Fixture.hiddenFields(consent.text)
            #expect(hidden["response_mode"] == "web_message")
            #expect(hidden["frame_id"] == "0c9b3f4e-6a53-4f0e-9d5e-4bb1c0f5c1aa" && hidden["m"] == "12")
            #expect(hidden["v"] == "1.5.6")

            let cancelled = try await client.postForm(
                "/auth/authorize/consent", Self.popup + [("mock_action", "cancel")])
            #expect(cancelled.status == .ok)
            #expect(
                Self.attribute("data-message", in: cancelled.text)
                    == #"{"method":"oauthDone","data":{"error":"user_cancelled_authorize"}}"#)
            #expect(Self.attribute("data-target-origin", in: cancelled.text) == "http://localhost:3000")

            let continued = try await client.postForm(
                "/auth/authorize/consent",
                Self.popup + [("mock_user", "alex"), ("mock_email", "hide"), ("mock_action", "continue")])
            let data = try #require(try Self.message(continued.text)["data"] as? [String: Any])
            let email = (data["user"] as? [String: Any])?["email"] as? String
            #expect(email?.hasSuffix("@privaterelay.appleid.com") == true)
        }
    }

    @Test(
        "bad parameters get Apple's error page in the popup, never a message",
        arguments: [
            ("redirect_uri", "https://evil.example/cb", "invalid_request", "Invalid web redirect url."),
            ("redirect_uri", nil, "invalid_request", "Invalid web redirect url."),
            ("client_id", "com.unknown", "invalid_client", nil),
            ("response_type", "id_token", "unsupported_response_type", nil),
            ("scope", "name profile", "invalid_request", "Invalid client scope"),
        ] as [(String, String?, String, String?)])
    func errors(name: String, value: String?, error: String, message: String?) async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let pairs = Self.popup.filter { $0.0 != name } + (value.map { [(name, $0)] } ?? [])
        try await app.test(.router) { client in
            let response = try await client.authorize(pairs + [("login_hint", "maria")])
            #expect(response.status == .badRequest)
            #expect(response.text.contains("<strong id=\"error\">\(error)</strong>"))
            if let message { #expect(response.text.contains(message.htmlEscaped)) }
            #expect(!response.text.contains("postMessage"))
        }
    }

    @Test("request values reach the page only escaped")
    func escaping() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let state = #"x"></main><script>alert(1)</script>'"#
        try await app.test(.router) { client in
            let page = try await client.authorize(
                Self.popup.filter { $0.0 != "state" } + [("state", state), ("login_hint", "maria")])
            #expect(!page.text.contains("<script>alert(1)"))
            let data = try #require(try Self.message(page.text)["data"] as? [String: Any])
            #expect((data["authorization"] as? [String: Any])?["state"] as? String == state)
        }
    }

    @Test(
        "the target origin is the return URL's origin as browsers write it",
        arguments: [
            ("https://app.example.com/auth/apple/callback?x=1", "https://app.example.com"),
            ("https://App.Example.com:443/cb", "https://app.example.com"),
            ("https://app.example.com:8443/cb", "https://app.example.com:8443"),
            ("http://localhost:3000/auth/apple/callback", "http://localhost:3000"),
            ("http://127.0.0.1:80/", "http://127.0.0.1"),
            ("http://[::1]:8080/cb", "http://[::1]:8080"),
            ("com.example.app://callback", nil),
            ("https:///nohost", nil),
        ] as [(String, String?)])
    func origins(uri: String, origin: String?) {
        #expect(AuthorizationRequest.webOrigin(of: uri) == origin)
        if origin == nil {
            #expect(throws: AppleError.self) { try AuthorizationRequest.checkWebMessageTarget(uri) }
        }
    }

    @Test("the message text: authorization fields in order, user as an object, errors alone")
    func messageText() {
        #expect(
            WebMessage.text(for: [("code", "c1"), ("id_token", "e.y.j"), ("state", "s\"1")])
                == #"{"method":"oauthDone","data":{"authorization":{"code":"c1","id_token":"e.y.j","state":"s\"1"}}}"#)
        #expect(
            WebMessage.text(for: [("code", "c1"), ("user", #"{"email":"a@b.c"}"#)])
                == #"{"method":"oauthDone","data":{"authorization":{"code":"c1"},"user":{"email":"a@b.c"}}}"#)
        #expect(
            WebMessage.text(for: [("error", "user_cancelled_authorize"), ("state", "s")])
                == #"{"method":"oauthDone","data":{"error":"user_cancelled_authorize"}}"#)
    }
}
