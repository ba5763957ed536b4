import Hummingbird
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a fault rule that fired does to an Apple call's answer: an Apple error, an HTTP status with a
/// body, a `Retry-After`, or only the first half of the answer's body.
enum FaultAnswer {
    /// The answer the rule gives instead of the real one, or `nil` to let the endpoint answer.
    static func replacement(for rule: FaultRule, endpoint: FaultRule.Endpoint) -> Response? {
        var response: Response
        if let code = rule.error {
            let error = AppleError(code, description: rule.errorDescription, reason: "fault rule \(rule.id)")
            response = AppleErrorMiddleware.response(error, page: endpoint == .authorize)
        } else if let status = rule.status {
            response = body(rule.body, status: HTTPResponse.Status(code: status))
        } else {
            return nil
        }
        if let seconds = rule.retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
        return response
    }

    /// `body` as sent with a status: a string as text, anything else as JSON, nothing as empty.
    private static func body(_ body: JSONValue?, status: HTTPResponse.Status) -> Response {
        switch body {
        case .none:
            return Response(status: status, headers: [.contentLength: "0", .cacheControl: "no-store"])
        case .string(let text):
            return Response(
                status: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: text)))
        case .some(let value):
            return Responses.appleJSON(value, status: status)
        }
    }

    /// `response` with only the first half of its body (at least one byte less), and a matching
    /// `Content-Length`, so the client reads a well-framed answer whose JSON breaks off.
    static func truncated(_ response: Response) async throws -> Response {
        let sink = BodySink()
        try await response.body.write(BodyCollector(sink: sink))
        var bytes = sink.bytes.withLock { $0 }
        let kept = bytes.readableBytes / 2
        var result = response
        result.body = .init(byteBuffer: bytes.readSlice(length: kept) ?? ByteBuffer())
        result.headers[.contentLength] = String(kept)
        return result
    }

    /// Where `BodyCollector` puts the bytes it is given.
    private final class BodySink: Sendable {
        let bytes = Mutex(ByteBuffer())
    }

    /// Gathers a response body in memory (the mock's bodies are small).
    private struct BodyCollector: ResponseBodyWriter {
        let sink: BodySink

        mutating func write(_ part: ByteBuffer) async throws {
            var part = part
            sink.bytes.withLock { _ = $0.writeBuffer(&part) }
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
