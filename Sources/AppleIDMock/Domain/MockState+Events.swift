#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Lifecycle events on the state: the scenario's schedule, events applied now, the event log.
extension MockState {
    // MARK: - Lifecycle events

    /// Applies the scenario's scheduled transfers and events that are due on the mock's clock, in one
    /// step; events that do not apply are logged as skipped. Returns the state in force afterwards.
    @discardableResult
    func fireDueEvents(confirming confirmation: ControlConfirmation? = nil) async throws -> ActiveScenario {
        let active = try await current(confirming: confirmation)
        guard active.hasDueWork(at: active.now) else { return active }
        try await applyDueEvents()
        return try await current()
    }

    /// Applies what is due, in one step (the schedule is read again inside it).
    private func applyDueEvents() async throws {
        try await changeControl { [self] control, active, transaction in
            let now = active.now
            var world = active.world
            for scheduled in active.scheduledTransfers.dropFirst(control.firedTransfers) {
                guard (scheduled.at ?? .distantPast) <= now else { break }
                control.firedTransfers += 1
                let outcome: String
                do throws(ControlRefusal) {
                    _ = try Self.transfer(
                        appGroupId: scheduled.appGroupId, toTeam: scheduled.toTeam, at: scheduled.at ?? now, in: world,
                        control: &control)
                    world = World(
                        scenario: world.scenario, transfers: control.transfers,
                        identityNamespace: world.identityNamespace)
                    outcome = "applied"
                } catch {
                    outcome = "skipped: \(error.message)"
                }
                try await self.log(
                    EventLogEntry(
                        source: "scheduled", type: "transfer", user: "", appGroupId: scheduled.appGroupId,
                        scheduledAt: scheduled.at, firedAt: now,
                        outcome: "\(outcome) (to team \(scheduled.toTeam))", notificationIds: []),
                    settings: world.settings, transaction: transaction)
            }
            for scheduled in active.scheduledEvents.dropFirst(control.firedEvents) {
                guard (scheduled.at ?? .distantPast) <= now else { break }
                control.firedEvents += 1
                var outcome = "applied"
                var ids: [String] = []
                do {
                    let drafts = try await Session(transaction: transaction).apply(
                        scheduled.event, world: world, now: now)
                    ids = try await self.enqueue(
                        drafts, world: world, now: now, epoch: control.epoch, transaction: transaction)
                } catch let refusal as ControlRefusal {
                    outcome = "skipped: \(refusal.message)"
                }
                try await self.log(
                    EventLogEntry(
                        source: "scheduled", type: scheduled.event.kind.rawValue, user: scheduled.event.userKey,
                        appGroupId: scheduled.event.appGroupId, scheduledAt: scheduled.at, firedAt: now,
                        outcome: outcome, notificationIds: ids),
                    settings: world.settings, transaction: transaction)
            }
        }
    }

    /// Applies an event now (control plane), logs it and queues its notifications, in one step;
    /// throws when it does not apply.
    func applyNow(_ event: LifecycleEvent) async throws -> EventLogEntry {
        try await changeControl { control, active, transaction in
            let now = active.now
            let drafts = try await Session(transaction: transaction).apply(event, world: active.world, now: now)
            let ids = try await self.enqueue(
                drafts, world: active.world, now: now, epoch: control.epoch, transaction: transaction)
            let entry = EventLogEntry(
                source: "api", type: event.kind.rawValue, user: event.userKey, appGroupId: event.appGroupId,
                scheduledAt: nil, firedAt: now, outcome: "applied", notificationIds: ids)
            try await self.log(entry, settings: active.world.settings, transaction: transaction)
            return entry
        }
    }

    /// Queues notifications inside a session step (for `/auth/revoke` with `notifyOnRevokeEndpoint`,
    /// so the revocation and its notification are one step).
    func emit(_ drafts: [NotificationDraft], in session: Session, active: ActiveScenario) async throws {
        _ = try await enqueue(
            drafts, world: active.world, now: active.now, epoch: active.control.epoch,
            transaction: session.transaction)
    }

    /// The event log (oldest first) and the scheduled events still to come.
    func events() async throws -> (log: [EventLogEntry], upcoming: [ScheduledEvent]) {
        let active = try await current()
        let log = try await store.transaction { try await $0.list(Spaces.eventLog).map(\.value) }
        return (log, Array(active.upcomingEvents))
    }

    func log(_ entry: EventLogEntry, settings: MockSettings, transaction: any StateTransaction) async throws {
        try await transaction.put(Spaces.eventLog, entry.id, entry)
        try await transaction.prune(Spaces.eventLog, keep: settings.historyLimit)
    }
}
