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

    /// The bundled default's services on a memory store at `start`, for a test that looks inside
    /// (the store's watch, the state) while it drives them over HTTP with `application(_:)`.
    static func services() async throws -> MockServices {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return try await MockServices.load(
            configuration: configuration(), store: MemoryStore(), clock: .fixed(at: start), logger: logger)
    }

    /// The router over `services` as the server mounts it (namespace prefixes included), with the
    /// journal writer running: a waiting journal read is woken by the entries it writes.
    static func application(_ services: MockServices) -> some ApplicationProtocol {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return Application(
            responder: NamespacePrefixResponder(router: buildRouter(services: services).buildResponder()),
            services: [JournalService(state: services.state, journal: services.journal, logger: logger)])
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

extension TestResponse {
    /// The body as a JSON object.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]) ?? [:]
    }

    /// The body as text.
    var text: String { String(buffer: body) }
}
