import Testing

@testable import AppleIDMock

/// The web path goes on only with a sign-in Apple would serve: the backend's authorize request
/// checked by the authorize endpoint's own rules (its `redirect_uri` registered for the run), and a
/// callback in an origin the config allows (`web.origins`).
@Suite("Backend conformance: the web path's authorize request and callback")
struct ConformanceWebCheckTests {
    /// An authorize request as a backend's start URL sends it, with `changes` over a valid one.
    private static func ask(_ changes: [String: String?] = [:]) -> ConformanceBrowser.AuthorizeAsk {
        var parameters: [String: String?] = [
            "client_id": "com.example.web", "redirect_uri": "http://127.0.0.1:3000/auth/apple/callback",
            "response_type": "code id_token", "response_mode": "form_post", "scope": "name email",
            "state": "s-1", "nonce": "n-1",
        ]
        parameters.merge(changes) { _, new in new }
        let pairs = parameters.compactMap { name, value in value.map { (name: name, value: $0) } }
            .sorted { $0.name < $1.name }
        func value(_ name: String) -> String? { pairs.first { $0.name == name }?.value }
        return ConformanceBrowser.AuthorizeAsk(
            url: "http://127.0.0.1:8080/auth/authorize", parameters: pairs, clientId: value("client_id") ?? "",
            redirectUri: value("redirect_uri") ?? "", state: value("state"), nonce: value("nonce"),
            responseMode: value("response_mode") ?? "query", wantsIdToken: true,
            scopes: (value("scope") ?? "").split(separator: " ").map(String.init))
    }

    private static let start: Set = [ConformanceBrowser.origin(of: "http://127.0.0.1:3000/login/apple/start")]

    /// The message `check` refuses `ask` with, if it does.
    private static func refusal(_ ask: ConformanceBrowser.AuthorizeAsk, origins: Set<String> = start) throws -> String?
    {
        do {
            try ConformanceSession.check(ask, world: try Fixture.defaultWorld(), origins: origins)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("a valid request passes, its redirect_uri registered for the run though the scenario lacks it")
    func valid() throws {
        #expect(try Self.refusal(Self.ask()) == nil)
        #expect(try Self.refusal(Self.ask(["redirect_uri": "http://127.0.0.1:3000/elsewhere/callback"])) == nil)
    }

    @Test("what Apple's authorize endpoint refuses, the run refuses with Apple's error")
    func applesRules() throws {
        let query = try #require(try Self.refusal(Self.ask(["response_mode": "query", "response_type": "code"])))
        #expect(query.contains("invalid_request") && query.contains("form_post"), "\(query)")
        let app = try #require(try Self.refusal(Self.ask(["client_id": "com.example.app"])))
        #expect(app.contains("invalid_client") && app.contains("App ID"), "\(app)")
        let unknown = try #require(try Self.refusal(Self.ask(["client_id": "com.nobody.web"])))
        #expect(unknown.contains("invalid_client"), "\(unknown)")
        let type = try #require(try Self.refusal(Self.ask(["response_type": "token"])))
        #expect(type.contains("unsupported_response_type") || type.contains("invalid"), "\(type)")
    }

    @Test("a callback outside the start URL's origin needs web.origins")
    func callbackOrigin() throws {
        let elsewhere = Self.ask(["redirect_uri": "https://other.example/callback"])
        let refused = try #require(try Self.refusal(elsewhere))
        #expect(refused.contains("web.origins") && refused.contains("https://other.example:443"), "\(refused)")
        let allowed = Self.start.union([ConformanceBrowser.origin(of: "https://other.example")])
        #expect(try Self.refusal(elsewhere, origins: allowed) == nil)
    }

    @Test("web.origins: absolute http(s) URLs, kept as origins; anything else named by its index")
    func originsConfig() throws {
        let body: JSONValue = .object([
            "clientId": .string("com.example.app"),
            "web": .object([
                "start": .string("http://127.0.0.1:3000/login/apple/start"),
                "origins": .array([.string("https://auth.example.com/callback"), .string("ftp://x"), .number(3)]),
            ]),
        ])
        var reader = JSONReader()
        #expect(ConformanceConfig.read(body, reader: &reader) == nil || !reader.problems.isEmpty)
        let problems = reader.problems.map { "\($0.path)" }
        #expect(problems == ["$.web.origins[1]", "$.web.origins[2]"], "\(reader.problems)")
        var good = JSONReader()
        let valid = ConformanceConfig.read(
            .object([
                "clientId": .string("com.example.app"),
                "web": .object([
                    "start": .string("http://127.0.0.1:3000/s"),
                    "origins": .array([.string("https://auth.example.com/cb")]),
                ]),
            ]), reader: &good)
        #expect(good.problems.isEmpty)
        #expect(valid?.web?.allowedOrigins == ["http://127.0.0.1:3000", "https://auth.example.com:443"])
    }
}
