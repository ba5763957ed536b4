import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceLifecycle

/// The background worker: fires scheduled lifecycle events when the mock's clock reaches them, and
/// posts due notifications as `{"payload": "<JWS>"}`, retrying failures with backoff. Each
/// notification is taken under a lease, so with replicas exactly one delivers it, and another takes
/// it over if that one dies. A delivery is cut short by a reset, a switch, or shutdown.
struct NotificationDeliveryService: Service {
    let services: MockServices
    /// How often it looks for due work.
    var tick: Duration = .milliseconds(50)
    /// How many notifications one replica delivers at once.
    var batch = 16

    func run() async throws {
        // A receiver that refuses connections fails the attempt at once; the retry policy paces the
        // next one (AsyncHTTPClient would otherwise retry the connection until the attempt's timeout).
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        try? await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                while !Task.isCancelled {
                    await poll(into: &group, client: client)
                    try? await Task.sleep(for: tick)
                }
            }
        }
        try? await client.shutdown()
    }

    private func poll(into group: inout DiscardingTaskGroup, client: HTTPClient) async {
        do {
            try await services.state.fireDueEvents()
            let settings = try await services.state.current().world.settings
            let timeout = Duration.milliseconds(settings.notificationTimeoutMilliseconds)
            let claim = UUID().uuidString
            let records = try await services.state.claimDueNotifications(
                claim: claim, lease: timeout + .seconds(2), limit: batch)
            for record in records {
                group.addTask { await deliver(record, claim: claim, settings: settings, client: client) }
            }
        } catch {
            // Shutdown cancels the step under way: no outage to report.
            guard !Task.isCancelled else { return }
            services.logger.debug("notification worker: state store unavailable", metadata: ["error": "\(error)"])
        }
    }

    /// One attempt, raced against a reset or switch that makes the notification void.
    private func deliver(_ record: NotificationRecord, claim: String, settings: MockSettings, client: HTTPClient)
        async
    {
        let started = Date()
        let result = await withTaskGroup(of: (status: Int?, outcome: String)?.self) { race in
            race.addTask { await post(record, settings: settings, client: client) }
            race.addTask {
                await services.state.epochs.waitForChange(from: record.epoch)
                return nil
            }
            let first = await race.next() ?? nil
            race.cancelAll()
            return first
        }
        guard let result, !Task.isCancelled else {
            services.logger.info("notification delivery cut short", metadata: ["idp.notification": .string(record.id)])
            return
        }
        let attempt = NotificationRecord.Attempt(
            startedAt: started, durationMilliseconds: Int(Date().timeIntervalSince(started) * 1000),
            httpStatus: result.status, outcome: result.outcome)
        do {
            try await services.state.finishDelivery(
                record.id, claim: claim, attempt: attempt, policy: NotificationRecord.RetryPolicy(settings: settings))
        } catch {
            services.logger.warning(
                "notification outcome not recorded", metadata: ["idp.notification": .string(record.id)])
        }
        services.logger.log(
            level: result.outcome == "delivered" ? .info : .notice, "notification delivery",
            metadata: [
                "idp.notification": .string(record.id), "idp.type": .string(record.type),
                "idp.outcome": .string(result.outcome),
            ])
    }

    private func post(_ record: NotificationRecord, settings: MockSettings, client: HTTPClient) async -> (
        status: Int?, outcome: String
    ) {
        do {
            guard let url = record.url else { return (nil, "no notificationUrl") }
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            let payload = try services.minter.sign(record.claims, settings: settings)
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(["payload": payload])))
            let response = try await client.execute(
                request, timeout: .milliseconds(Int64(settings.notificationTimeoutMilliseconds)))
            _ = try? await response.body.collect(upTo: 1 << 20)
            let code = Int(response.status.code)
            return (code, (200..<300).contains(code) ? "delivered" : "http \(code)")
        } catch {
            return (nil, "\(error)")
        }
    }
}
