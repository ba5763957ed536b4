import AsyncHTTPClient
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The background worker: fires scheduled lifecycle events when the mock's clock reaches them, and
/// posts due notifications as `{"payload": "<JWS>"}`, retrying failures with backoff. Each
/// notification is taken under a lease, so with replicas exactly one delivers it, and another takes
/// it over if that one dies. A delivery is cut short by a reset, a switch, or shutdown.
struct NotificationDeliveryService: Service {
    /// Every namespace's world: each delivers its own notifications, in its own world.
    let namespaces: Namespaces
    /// Where each attempt is journaled.
    let journal: JournalRecorder
    let logger: Logger
    /// How often it looks for due work.
    var tick: Duration = .milliseconds(50)
    /// How many notifications one replica delivers at once.
    var batch = 16

    /// Counts deliveries under way, so no more than `batch` run at once.
    private final class DeliverySlots: Sendable {
        private let busy = Mutex(0)

        /// Takes up to `limit` free slots; returns how many.
        func take(upTo limit: Int) -> Int {
            busy.withLock { busy in
                let taken = max(0, limit - busy)
                busy += taken
                return taken
            }
        }

        /// Gives `count` slots back.
        func give(_ count: Int = 1) {
            busy.withLock { $0 -= count }
        }
    }

    func run() async throws {
        let client = NotificationPost.makeClient()
        let slots = DeliverySlots()
        // Every namespace kept by a durable store opens its world, so that its scheduled events
        // fire without waiting for a request.
        _ = try? await namespaces.allStates()
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                while !Task.isCancelled {
                    await poll(into: &group, client: client, slots: slots)
                    try? await Task.sleep(for: tick)
                }
            }
        }
        try? await client.shutdown()
    }

    private func poll(into group: inout DiscardingTaskGroup, client: HTTPClient, slots: DeliverySlots) async {
        do {
            // The worlds this process has opened fire their due events (the others do when used).
            var actives: [String: (state: MockState, active: ActiveScenario)] = [:]
            for state in namespaces.openedStates() {
                guard let active = try? await state.fireDueEvents() else { continue }
                actives[state.scope.name] = (state, active)
            }
            guard let home = actives[NamespaceName.default] else {
                _ = try await namespaces.defaultState.fireDueEvents()  // reports the outage
                return
            }
            // The lease outlasts the longest attempt any world allows.
            let longest = actives.values.map { $0.active.world.settings.notificationTimeoutMilliseconds }.max()
            let timeout = Duration.milliseconds(longest ?? home.active.world.settings.notificationTimeoutMilliseconds)
            let free = slots.take(upTo: batch)
            guard free > 0 else { return }
            let claim = UUID().uuidString
            let claimed: [(namespace: String, record: NotificationRecord)]
            do {
                claimed = try await home.state.claimDueNotifications(
                    claim: claim, lease: timeout + .seconds(2), limit: free)
            } catch {
                slots.give(free)
                throw error
            }
            slots.give(free - claimed.count)
            for (name, record) in claimed {
                let world: (state: MockState, active: ActiveScenario)
                if let opened = actives[name] {
                    world = opened
                } else {
                    do {
                        // Not `state(for:)`: a namespace deleted since the claim would be made again.
                        guard let state = try await namespaces.existingState(name) else {
                            slots.give()
                            continue
                        }
                        world = (state, try await state.fireDueEvents())
                        actives[name] = world
                    } catch {
                        slots.give()
                        continue
                    }
                }
                group.addTask {
                    defer { slots.give() }
                    await deliver(record, claim: claim, state: world.state, active: world.active, client: client)
                }
            }
        } catch {
            // Shutdown cancels the step under way: no outage to report.
            guard !Task.isCancelled else { return }
            logger.debug("notification worker: state store unavailable", metadata: ["error": "\(error)"])
        }
    }

    /// One attempt, raced against a reset or switch that makes the notification void.
    private func deliver(
        _ record: NotificationRecord, claim: String, state: MockState, active: ActiveScenario, client: HTTPClient
    ) async {
        let settings = active.world.settings
        let started = JournalStart()
        // The attempt, its deadline (the whole exchange, body included, stays inside the lease), and
        // a reset or switch that makes the notification void.
        let timeout = settings.notificationTimeoutMilliseconds
        // Signed with the key in force now; the record keeps the JWS as posted.
        let payload = try? TokenMinter.sign(record.claims, with: active.keys.signing)
        let fault = try? await state.firingFault(
            .notifications, grantType: nil, clientId: record.claims.aud, in: active)
        // The post's own trace context, journaled with the attempt.
        let traceparent = TraceContext.make()
        let result = await withTaskGroup(of: (status: Int?, outcome: DeliveryOutcome)?.self) { race in
            race.addTask {
                if let latency = fault?.latencyMilliseconds, latency > 0 {
                    try? await Task.sleep(for: .milliseconds(latency))
                }
                if let fault, fault.drop { return (nil, .droppedByFault(fault.id)) }
                return await post(
                    record, payload: payload, truncated: fault?.truncate ?? false, timeout: timeout,
                    traceparent: traceparent, client: client)
            }
            race.addTask {
                try? await Task.sleep(for: .milliseconds(timeout))
                return (nil, .timedOut(milliseconds: timeout))
            }
            race.addTask {
                await state.epochs.waitUntilSuperseded(record.epoch)
                return nil
            }
            let first = await race.next() ?? nil
            race.cancelAll()
            return first
        }
        guard let result, !Task.isCancelled else {
            logger.info("notification delivery cut short", metadata: ["idp.notification": .string(record.id)])
            return
        }
        let attempt = NotificationRecord.Attempt(
            startedAt: started.wallTime, durationMilliseconds: started.elapsedMilliseconds,
            httpStatus: result.status, outcome: result.outcome)
        journal(
            record, attempt: attempt, started: started, number: record.attempts.count + 1, fault: fault,
            traceparent: traceparent, state: state, active: active)
        do {
            try await state.finishDelivery(
                record.id, claim: claim, attempt: attempt, payload: payload,
                policy: NotificationRecord.RetryPolicy(settings: settings))
        } catch {
            logger.warning(
                "notification outcome not recorded", metadata: ["idp.notification": .string(record.id)])
        }
        logger.log(
            level: result.outcome == .delivered ? .info : .notice, "notification delivery",
            metadata: [
                "idp.notification": .string(record.id), "idp.type": .string(record.type),
                "idp.outcome": .string(result.outcome.description),
            ])
    }

    /// Records the attempt in the journal.
    private func journal(
        _ record: NotificationRecord, attempt: NotificationRecord.Attempt, started: JournalStart, number: Int,
        fault: FaultRule?, traceparent: String, state: MockState, active: ActiveScenario
    ) {
        let world = active.world
        let teamId = world.appGroups[record.appGroupId]?.teamId
        let userKey = teamId.flatMap { team in
            world.user(withSubject: record.sub, teamId: team)?.key
        }
        let outcome = JournalOutcome(notificationStatus: attempt.httpStatus, dropped: fault?.drop == true)
        state.metrics.notificationAttempt(delivered: outcome == .ok)
        journal.record(
            JournalEndpoint.notifications, in: state.scope, started: started, mockTime: active.now, outcome: outcome,
            latencyMilliseconds: attempt.durationMilliseconds
        ) {
            $0.clientId = record.claims.aud
            $0.userKey = userKey
            $0.sub = record.sub
            $0.status = attempt.httpStatus
            $0.reason = outcome == .ok ? nil : attempt.outcome.description
            $0.fault = fault?.id
            $0.notificationId = record.id
            $0.notificationType = record.type
            $0.attempt = number
            $0.url = record.url
            $0.traceparent = fault?.drop == true ? nil : traceparent
        }
    }

    private func post(
        _ record: NotificationRecord, payload: String?, truncated: Bool, timeout: Int, traceparent: String,
        client: HTTPClient
    ) async -> (status: Int?, outcome: DeliveryOutcome) {
        guard let url = record.url else { return (nil, .noURL) }
        guard let payload else { return (nil, .unsigned) }
        return await NotificationPost.send(
            payload, to: url, timeoutMilliseconds: timeout, truncated: truncated, traceparent: traceparent,
            client: client)
    }
}
