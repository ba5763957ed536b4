import AsyncHTTPClient
import Foundation
import NIOCore

/// Posts one made-to-order notification to a receiver, outside the outbox, and reports its answer.
enum NotificationProbe {
    /// One client for the process: a refused connection fails at once instead of being retried
    /// until the timeout (as the delivery worker's client does).
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// What the receiver answered.
    struct Answer: Sendable {
        /// The HTTP status, or `nil` when none came.
        var status: Int?
        /// `delivered`, `http 401`, or what went wrong.
        var outcome: String
        var milliseconds: Int
    }

    /// Posts `{"payload": jws}` to `url` within `timeoutMilliseconds`.
    static func post(_ jws: String, to url: String, timeoutMilliseconds: Int) async -> Answer {
        let started = ContinuousClock.now
        func elapsed() -> Int { (ContinuousClock.now - started).wholeMilliseconds }
        if let problem = HTTPURLCheck.problem(url) {
            return Answer(status: nil, outcome: "not sent: \(problem)", milliseconds: 0)
        }
        do {
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(["payload": jws])))
            let response = try await client.execute(
                request, timeout: .milliseconds(Int64(timeoutMilliseconds)))
            _ = try? await response.body.collect(upTo: 1 << 20)
            let code = Int(response.status.code)
            return Answer(
                status: code, outcome: (200..<300).contains(code) ? "delivered" : "http \(code)",
                milliseconds: elapsed())
        } catch {
            return Answer(status: nil, outcome: "\(error)", milliseconds: elapsed())
        }
    }
}
