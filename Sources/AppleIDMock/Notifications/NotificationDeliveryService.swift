import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceLifecycle

/// The background worker: fires scheduled lifecycle events when the mock's clock reaches them, and
/// posts due notifications as `{"payload": "<JWS>"}`, retrying failures with backoff. A `Service`,
/// so it stops with the server.
struct NotificationDeliveryService: Service {
    let services: MockServices
    /// How often it looks for due work.
    var tick: Duration = .milliseconds(50)

    func run() async throws {
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                await services.fireDueEvents()
                let policy = NotificationOutbox.RetryPolicy(settings: await services.runtime.current.world.settings)
                let timeout = await services.runtime.current.world.settings.notificationTimeoutMilliseconds
                for record in await services.outbox.takeDue(now: Date()) {
                    group.addTask { await deliver(record, policy: policy, timeout: timeout) }
                }
                try? await Task.sleep(for: tick)
            }
        }
    }

    private func deliver(_ record: NotificationOutbox.Record, policy: NotificationOutbox.RetryPolicy, timeout: Int)
        async
    {
        let started = Date()
        var status: Int?
        var outcome: String
        do {
            // Without a notificationUrl the attempt is recorded as failed (such records are never queued).
            guard let url = record.url else { throw URLError(.badURL) }
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            let body = try JSONEncoder().encode(["payload": record.payload])
            request.body = .bytes(ByteBuffer(bytes: body))
            let response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(Int64(timeout)))
            _ = try? await response.body.collect(upTo: 1 << 20)
            status = Int(response.status.code)
            outcome = (200..<300).contains(response.status.code) ? "delivered" : "http \(response.status.code)"
        } catch {
            outcome = "\(error)"
        }
        let attempt = NotificationOutbox.Attempt(
            startedAt: started, durationMilliseconds: Int(Date().timeIntervalSince(started) * 1000), httpStatus: status,
            outcome: outcome)
        await services.outbox.finish(record.id, attempt: attempt, policy: policy)
        services.logger.log(
            level: outcome == "delivered" ? .info : .notice, "notification delivery",
            metadata: [
                "idp.notification": .string(record.id), "idp.type": .string(record.type),
                "idp.outcome": .string(outcome),
            ])
    }
}
