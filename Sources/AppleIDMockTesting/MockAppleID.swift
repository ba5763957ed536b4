import AppleIDMock
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore

/// A Sign in with Apple mock running inside the test process: `MockAppleID.run { mock in … }`
/// starts it on a free port (`.live`, for a backend that calls it over HTTP at `mock.baseURL`) or
/// without a port (`.router`, requests handed to the router directly), runs the body, and stops it.
/// Helpers sign users in, make client secrets, trigger lifecycle events, move the mock's clock,
/// read the request journal and wait for server-to-server notifications. Everything they do goes
/// through the mock's own HTTP API, as the CLI server's users do. `withNamespace { ns in … }` gives
/// a handle on a fresh namespace of the same mock, whose helpers all work in that world.
public struct MockAppleID: Sendable {
    /// How the test reaches the mock.
    public enum Transport: Sendable {
        /// A real server on a free port of 127.0.0.1: `baseURL` is set.
        case live
        /// No port: requests go straight to the router (`baseURL` is `nil`).
        case router
    }

    /// The issuer every identity token names, as Apple's do.
    public static let issuer = "https://appleid.apple.com"

    /// Where a backend under test reaches the mock (`http://127.0.0.1:<port>`), or `nil` without a port.
    /// In a namespace: `http://127.0.0.1:<port>/ns/<name>`, Apple's endpoints and the control plane
    /// of that namespace.
    public let baseURL: String?

    /// The namespace this handle works in (`withNamespace`), or `nil` for the mock's `default` world.
    public let namespace: String?

    private let client: any TestClientProtocol

    /// Put before every path sent: empty, or `/ns/<name>`.
    private let pathPrefix: String

    private init(client: any TestClientProtocol, namespace: String? = nil) {
        self.client = client
        self.namespace = namespace
        self.pathPrefix = namespace.map(Self.pathPrefix(of:)) ?? ""
        self.baseURL = client.port.map { "http://127.0.0.1:\($0)" + (namespace.map(Self.pathPrefix(of:)) ?? "") }
    }

    /// A handle on the same mock that works in the namespace `name` (`nil`: the default world).
    func inNamespace(_ name: String?) -> MockAppleID {
        MockAppleID(client: client, namespace: name)
    }

    /// Starts a mock with `options`, runs `body` with it, and stops it (also when `body` throws).
    public static func run<Value: Sendable>(
        _ transport: Transport = .live, options: Options = Options(),
        _ body: @Sendable (MockAppleID) async throws -> Value
    ) async throws -> Value {
        var configuration = ServerConfiguration(
            port: 0, scenariosDirectory: options.scenariosDirectory, keysDirectory: options.keysDirectory,
            scenario: options.scenario, logLevel: options.logLevel)
        configuration.mail = MailConfiguration(
            smtpPort: options.smtpPort, forward: options.smtpForward.flatMap(SMTPAddress.init(parsing:)))
        let clock = options.startingAt.map(MockClock.fixed(at:)) ?? MockClock()
        let application = try await buildApplication(configuration: configuration, clock: clock)
        let setup: TestingSetup =
            switch transport {
            case .live: .live
            case .router: .router
            }
        return try await application.test(setup) { client in
            try await body(MockAppleID(client: client))
        }
    }

    /// Sends one request to the mock: any endpoint, Apple's or the control plane's (in a namespace,
    /// `path` is taken under its `/ns/<name>` prefix). JSON bodies go with `Content-Type:
    /// application/json`, forms with `application/x-www-form-urlencoded`.
    public func send(
        _ method: HTTPRequest.Method, _ path: String, body: Body? = nil, headers: [String: String] = [:]
    ) async throws -> Answer {
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let name = HTTPField.Name(name) else { throw MockAppleIDError.invalidHeader(name) }
            fields[name] = value
        }
        var buffer: ByteBuffer?
        switch body {
        case .json(let text):
            fields[.contentType] = "application/json"
            buffer = ByteBuffer(string: text)
        case .form(let pairs):
            fields[.contentType] = "application/x-www-form-urlencoded"
            buffer = ByteBuffer(string: FormParameters.encode(pairs))
        case nil:
            break
        }
        let response = try await client.execute(
            uri: pathPrefix + path, method: method, headers: fields, body: buffer)
        var headerValues: [String: String] = [:]
        for field in response.headers { headerValues[field.name.canonicalName] = field.value }
        return Answer(status: Int(response.status.code), headers: headerValues, body: String(buffer: response.body))
    }

    /// Sends one request and returns its 2xx answer; anything else throws
    /// `MockAppleIDError.unexpectedAnswer` with the status and body.
    @discardableResult
    func succeeding(_ method: HTTPRequest.Method, _ path: String, body: Body? = nil) async throws -> Answer {
        let answer = try await send(method, path, body: body)
        guard (200..<300).contains(answer.status) else {
            throw MockAppleIDError.unexpectedAnswer(path: pathPrefix + path, status: answer.status, body: answer.body)
        }
        return answer
    }

    /// A control-plane call without a body, its 2xx JSON answer decoded.
    func call<T: Decodable>(_ method: HTTPRequest.Method, _ path: String, as type: T.Type) async throws -> T {
        try await succeeding(method, path).decode(T.self)
    }

    /// A control-plane call with `json` as its body, its 2xx JSON answer decoded.
    func call<T: Decodable>(
        _ method: HTTPRequest.Method, _ path: String, json: some Encodable, as type: T.Type
    ) async throws -> T {
        let text = String(decoding: try JSONEncoder().encode(json), as: UTF8.self)
        return try await succeeding(method, path, body: .json(text)).decode(T.self)
    }

    /// Dates as the control plane writes them: ISO 8601, with or without fractions of a second.
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            let formatter = ISO8601DateFormatter()
            if let date = formatter.date(from: text) { return date }
            formatter.formatOptions.insert(.withFractionalSeconds)
            if let date = formatter.date(from: text) { return date }
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 date: \(text)"))
        }
        return decoder
    }()
}
