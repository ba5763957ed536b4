import AsyncHTTPClient
import NIOCore
import NIOHTTP1

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The one way the mock posts a notification to a receiver, as Apple does (`{"payload": jws}`),
/// and names what came back: used by the delivery worker and by notifications made to order.
enum NotificationPost {
    /// An HTTP client for receivers: a refused connection fails the attempt at once instead of being
    /// retried until its timeout (the retry policy, not the client, paces the next attempt).
    static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Posts `jws` to `url` within `timeoutMilliseconds` (only the first half of the body when
    /// `truncated`, for the fault). Returns the receiver's status, or `nil` when none came, and the
    /// outcome. With `traceparent`, the post carries that W3C trace context header.
    static func send(
        _ jws: String, to url: String, timeoutMilliseconds: Int, truncated: Bool = false, traceparent: String? = nil,
        client: HTTPClient
    ) async -> (status: Int?, outcome: DeliveryOutcome) {
        // Also for URLs stored by an earlier version that let them through: the client traps on them.
        if let problem = HTTPURLCheck.problem(url) { return (nil, .unsendable(problem)) }
        do {
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            if let traceparent { request.headers.add(name: TraceContext.header, value: traceparent) }
            let body = try JSONEncoder().encode(["payload": jws])
            request.body = .bytes(ByteBuffer(bytes: truncated ? body.prefix(body.count / 2) : body))
            let response = try await client.execute(request, timeout: .milliseconds(Int64(timeoutMilliseconds)))
            _ = try? await response.body.collect(upTo: 1 << 20)
            let code = Int(response.status.code)
            return (code, DeliveryOutcome(status: code))
        } catch {
            return (nil, .failed("\(error)", DeliveryFailure(error)))
        }
    }
}
