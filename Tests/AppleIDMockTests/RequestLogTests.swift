import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import AppleIDMock

/// The debug request log: one line per request, secrets of the query shown only as fingerprints,
/// and nothing at all below debug (the middleware is then not installed).
@Suite("Request log")
struct RequestLogTests {
    typealias CapturingHandler = DeferredMetadataLogHandlerTests.CapturingHandler

    /// The lines logged while `/health` is asked with a secret in its query, at `level`.
    static func linesLogged(at level: Logger.Level) async throws -> [String] {
        let sink = DeferredMetadataLogHandlerTests.Sink()
        var logger = Logger(label: "test") { _ in CapturingHandler(sink: sink) }
        logger.logLevel = level
        let services = try await MockServices.load(
            configuration: Fixture.configuration(), store: MemoryStore(), clock: MockClock(), logger: logger)
        try await Application(router: buildRouter(services: services)).test(.router) { client in
            let response = try await client.execute(uri: "/health?client_secret=s3cr3t-value", method: .get)
            #expect(response.status == .ok)
            #expect(String(buffer: response.body) == #"{"status":"ok"}"#)
        }
        return sink.lines.withLock { $0 }.filter { $0.hasSuffix(" request") }
    }

    @Test("at debug, each request is logged with its status and the query's secrets as fingerprints")
    func debugLogsRequests() async throws {
        let lines = try await Self.linesLogged(at: .debug)
        #expect(lines.count == 1)
        let line = lines.first ?? ""
        #expect(line.hasPrefix("debug "))
        #expect(line.contains("hb.request.method=GET"))
        #expect(line.contains("hb.response.status=200"))
        #expect(line.contains("hb.request.path=/health?client_secret=sha256:\(Fingerprint.of("s3cr3t-value"))"))
        #expect(!line.contains("s3cr3t-value"))
    }

    @Test("below debug, requests are not logged")
    func quietBelowDebug() async throws {
        #expect(try await Self.linesLogged(at: .info).isEmpty)
    }
}
