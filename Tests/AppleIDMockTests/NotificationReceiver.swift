import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore

/// A backend's notification endpoint for tests: records every `{"payload": …}` it receives and can
/// fail the first N deliveries with 503, like a receiver that is down for a while, or hang on the
/// first N (accept the request and not answer until `release()`), like a receiver that is stuck.
actor NotificationInbox {
    /// One request that reached the receiver, whatever it was answered.
    struct Arrival: Sendable {
        var at: Date
        /// The notification's `jti`, read from the payload.
        var jti: String?
        /// The W3C `traceparent` header the post carried.
        var traceparent: String? = nil
    }

    /// The payloads answered 200, in order.
    private(set) var payloads: [String] = []
    private(set) var contentTypes: [String] = []
    /// Every request, in order of arrival.
    private(set) var arrivals: [Arrival] = []
    private var failuresLeft: Int
    private var hangsLeft: Int
    private var released = false

    /// `failFirst: .max` answers 503 to everything; `hangFirst: .max` never answers until released.
    init(failFirst: Int = 0, hangFirst: Int = 0) {
        failuresLeft = failFirst
        hangsLeft = hangFirst
    }

    /// What to do with one delivery.
    enum Answer {
        case status(HTTPResponse.Status)
        case hang
    }

    /// Handles one delivery.
    func receive(body: Data, contentType: String?, traceparent: String? = nil) -> Answer {
        let payload = (try? JSONSerialization.jsonObject(with: body) as? [String: String])?["payload"]
        arrivals.append(
            Arrival(
                at: Date(), jti: payload.flatMap { Fixture.claims(of: $0)["jti"] as? String }, traceparent: traceparent)
        )
        if hangsLeft > 0 {
            hangsLeft -= 1
            return .hang
        }
        if failuresLeft > 0 {
            failuresLeft -= 1
            return .status(.serviceUnavailable)
        }
        contentTypes.append(contentType ?? "")
        if let payload { payloads.append(payload) }
        return .status(.ok)
    }

    /// Stops failing: every later delivery is answered 200 (a receiver that was down comes back).
    func recover() {
        failuresLeft = 0
    }

    /// Ends every hang, now and later (each hung request is then answered 200).
    func release() {
        released = true
    }

    /// Whether hangs are over.
    var isReleased: Bool { released }

    /// Waits (up to `seconds`, times `Waiting.patience`) until `count` payloads arrived.
    func waitFor(_ count: Int, seconds: Double = 10) async -> [String] {
        _ = try? await Waiting.until(seconds: seconds, every: .milliseconds(20)) { payloads.count >= count }
        return payloads
    }

    /// Waits (up to `seconds`, times `Waiting.patience`) until `count` requests arrived, whatever
    /// they were answered.
    func waitForArrivals(_ count: Int, seconds: Double = 10) async -> [Arrival] {
        _ = try? await Waiting.until(seconds: seconds, every: .milliseconds(20)) { arrivals.count >= count }
        return arrivals
    }

    /// How many requests arrived for each `jti`.
    func arrivalCounts() -> [String: Int] {
        arrivals.reduce(into: [:]) { counts, arrival in counts[arrival.jti ?? "?", default: 0] += 1 }
    }

    /// The receiver application, to run live on `port` (0: a free one); `onListening` gets the port.
    nonisolated func application(port: Int = 0, onListening: @escaping @Sendable (Int) async -> Void = { _ in })
        -> some ApplicationProtocol
    {
        var logger = Logger(label: "notification-receiver")
        logger.logLevel = .critical
        return Application(
            router: router(), configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { await onListening($0.localAddress?.port ?? port) }, logger: logger)
    }

    /// The receiver's routes.
    nonisolated func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("/notify") { request, _ -> Response in
            var buffer = try await request.body.collect(upTo: 1 << 20)
            let data = Data(buffer.readBytes(length: buffer.readableBytes) ?? [])
            let traceparent = request.headers[HTTPField.Name("traceparent")!]
            switch await self.receive(body: data, contentType: request.headers[.contentType], traceparent: traceparent)
            {
            case .status(let status):
                return Response(status: status)
            case .hang:
                // Until released, or the request is cancelled (the sleep then throws): a day is never.
                _ = try? await Waiting.until(deadline: .now + .seconds(86_400), every: .milliseconds(20)) {
                    await self.isReleased
                }
                return Response(status: .ok)
            }
        }
        return router
    }

    /// Runs the receiver on `port` of 127.0.0.1 (0: a free one) while `body` runs with its port, then
    /// ends every hang and stops it. (HummingbirdTesting's live mode always picks a free port.)
    nonisolated func serve<T: Sendable>(port: Int = 0, _ body: @Sendable (_ port: Int) async throws -> T)
        async throws -> T
    {
        try await ServingRouter.serve(router(), port: port, label: "notification-receiver") { bound in
            do {
                let result = try await body(bound)
                await release()
                return result
            } catch {
                await release()
                throw error
            }
        }
    }
}
