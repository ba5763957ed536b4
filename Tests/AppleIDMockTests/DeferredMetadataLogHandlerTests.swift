import Logging
import Synchronization
import Testing

@testable import AppleIDMock

/// The server's log handler defers formatting metadata, and still logs all of it.
@Suite("Deferred-metadata log handler")
struct DeferredMetadataLogHandlerTests {
    /// The lines a `CapturingHandler` logged (shared by its copies).
    final class Sink: Sendable {
        let lines = Mutex<[String]>([])
    }

    /// Logs each line with the metadata it had then, sorted, into a `Sink`.
    struct CapturingHandler: LogHandler {
        let sink: Sink
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let pairs = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            sink.lines.withLock { $0.append("\(event.level) \(pairs) \(event.message)") }
        }
    }

    @Test("metadata set on the logger reaches the wrapped handler when a line is logged; levels pass through")
    func metadataAndLevels() {
        let sink = Sink()
        var base = CapturingHandler(sink: sink)
        base.metadata = ["service": "mock"]
        var logger = Logger(label: "test") { _ in DeferredMetadataLogHandler(wrapping: base) }
        logger[metadataKey: "hb.request.id"] = "42"
        logger.logLevel = .notice
        logger.info("hidden")
        let request = logger  // a copy, as Hummingbird makes one per request
        var other = logger
        other[metadataKey: "hb.request.id"] = "43"
        request.notice("shown", metadata: ["idp.path": "/auth/token"])
        other.error("failed")
        #expect(logger.logLevel == .notice)
        #expect(logger[metadataKey: "service"] == "mock")
        #expect(
            sink.lines.withLock { $0 } == [
                "notice hb.request.id=42 idp.path=/auth/token service=mock shown",
                "error hb.request.id=43 service=mock failed",
            ])
    }
}
