import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore

@testable import AppleIDMock
@testable import AppleIDMockTesting

/// Paths, fixtures and request helpers shared by the test suites.
enum Fixture {
    /// The repository root (where `scenarios/` and `keys/` live).
    static let root: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let scenariosDirectory = root + "/scenarios"
    static let keysDirectory = root + "/keys"

    /// A fixed instant for router tests (2026-09-21T…); the live suite uses the real clock.
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    static let webClient = "com.example.web"
    static let appClient = "com.example.app"
    static let redirect = "http://localhost:3000/auth/apple/callback"
    static let teamId = "DEF123GHIJ"

    static func configuration(port: Int = 0) -> ServerConfiguration {
        ServerConfiguration(
            host: "127.0.0.1", port: port, scenariosDirectory: scenariosDirectory, keysDirectory: keysDirectory,
            logLevel: .critical)
    }

    /// The bundled default scenario as a world.
    static func defaultWorld() throws -> World {
        World(scenario: try ScenarioLoader.loadFile(scenariosDirectory + "/default.json"))
    }

    /// A valid client secret for `clientId` at `now`.
    static func secret(_ clientId: String = webClient, now: Date = start, lifetime: Int = 3_600) async throws -> String
    {
        try await ClientSecretFactory.make(
            clientId: clientId, world: try defaultWorld(), keysDirectory: keysDirectory, now: now, lifetime: lifetime)
    }

    /// The bundled default application with a clock the test controls.
    static func application(clock: MockClock) async throws -> some ApplicationProtocol {
        try await buildApplication(configuration: configuration(), clock: clock)
    }

    /// The hidden inputs of an HTML form (the form_post page, the consent page), read as the kit
    /// reads them.
    static func hiddenFields(_ html: String) -> [String: String] {
        HiddenFields.parse(html)
    }

    /// Query or fragment parameters of a redirect `Location`.
    static func parameters(ofLocation location: String, separator: Character) -> [String: String] {
        guard let part = location.split(separator: separator, maxSplits: 1).dropFirst().first,
            let form = try? FormParameters(encoded: part)
        else { return [:] }
        return Dictionary(form.pairs.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// The claims of a compact JWS, decoded without verification.
    static func claims(of jwt: String) -> [String: Any] {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3, let data = base64URL(parts[1]),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object
    }

    /// The header of a compact JWS.
    static func header(of jwt: String) -> [String: Any] {
        guard let first = jwt.split(separator: ".").first, let data = base64URL(first),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object
    }

    static func base64URL(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

extension TestClientProtocol {
    /// POSTs a form body.
    func postForm(_ uri: String, _ pairs: [(String, String)], headers extra: HTTPFields = [:]) async throws
        -> TestResponse
    {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        headers.append(contentsOf: extra)
        return try await execute(
            uri: uri, method: .post, headers: headers, body: ByteBuffer(string: FormParameters.encode(pairs)))
    }

    /// POSTs JSON to the control plane.
    func postJSON(_ uri: String, _ json: String, method: HTTPRequest.Method = .post) async throws -> TestResponse {
        try await execute(
            uri: uri, method: method, headers: [.contentType: "application/json"], body: ByteBuffer(string: json))
    }

    /// GETs `/auth/authorize` with these parameters.
    func authorize(_ pairs: [(String, String)], headers: HTTPFields = [:]) async throws -> TestResponse {
        try await execute(uri: "/auth/authorize?" + FormParameters.encode(pairs), method: .get, headers: headers)
    }

    /// Signs `user` in to the web client through `login_hint` with form_post and returns the posted fields.
    func signIn(
        _ user: String, scope: String = "name email", nonce: String? = "nonce-123", state: String = "state-xyz",
        extra: [(String, String)] = []
    ) async throws -> [String: String] {
        var pairs = [
            ("client_id", Fixture.webClient), ("redirect_uri", Fixture.redirect), ("response_type", "code id_token"),
            ("response_mode", "form_post"), ("scope", scope), ("state", state), ("login_hint", user),
        ]
        if let nonce { pairs.append(("nonce", nonce)) }
        let response = try await authorize(pairs + extra)
        return Fixture.hiddenFields(String(buffer: response.body))
    }

    /// Exchanges a code at `/auth/token`.
    func exchange(
        code: String, clientId: String = Fixture.webClient, redirect: String? = Fixture.redirect, secret: String,
        extra: [(String, String)] = []
    ) async throws -> TestResponse {
        var pairs = [
            ("grant_type", "authorization_code"), ("client_id", clientId), ("client_secret", secret), ("code", code),
        ]
        if let redirect { pairs.append(("redirect_uri", redirect)) }
        return try await postForm("/auth/token", pairs + extra)
    }

    /// Uses a refresh token.
    func refresh(_ token: String, clientId: String = Fixture.webClient, secret: String) async throws -> TestResponse {
        try await postForm(
            "/auth/token",
            [
                ("grant_type", "refresh_token"), ("client_id", clientId), ("client_secret", secret),
                ("refresh_token", token),
            ])
    }
}

extension TestResponse {
    /// The body as a JSON object.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]) ?? [:]
    }

    /// The body as text.
    var text: String { String(buffer: body) }
}
