import Foundation

/// The scenario in force, with what is derived from it once (lookups, client-secret keys).
public struct ActiveScenario: Sendable {
    /// The resolved world.
    public let world: World
    /// Checks client secrets against the world's developer keys.
    public let secrets: ClientSecretVerifier
}

/// Owns the mock's mutable state: the loaded scenarios, the active one, and the session state
/// (consents, codes, tokens). Switching scenario replaces the world and clears the session at once.
public actor MockRuntime {
    private var scenarios: [String: Scenario]
    private var active: ActiveScenario
    private var session = SessionState()
    private var schedule: EventSchedule
    /// The active scenario as loaded (the world applies transfers on top of it).
    private var base: Scenario
    private var transfers: [AppTransfer] = []
    private var pendingTransfers: [ScheduledTransfer]
    private let keyRing: SigningKeyRing
    /// Counts scenario switches and resets, so work started before one cannot touch what came after.
    private var epoch = 0

    /// Starts with `activeName` from `scenarios`; every scenario is checked against the signing keys.
    public init(scenarios: [String: Scenario], activeName: String, keyRing: SigningKeyRing) async throws(ScenarioError)
    {
        for scenario in scenarios.values.sorted(by: { $0.name < $1.name }) {
            try Self.check(scenario, against: keyRing)
        }
        guard let scenario = scenarios[activeName] else {
            throw ScenarioError(
                file: activeName,
                reason:
                    "no scenario named \"\(activeName)\"; available: \(scenarios.keys.sorted().joined(separator: ", "))"
            )
        }
        self.scenarios = scenarios
        self.keyRing = keyRing
        self.schedule = EventSchedule(scenario: scenario)
        self.base = scenario
        self.pendingTransfers = scenario.transfers
        self.active = ActiveScenario(
            world: World(scenario: scenario), secrets: await ClientSecretVerifier(scenario: scenario))
    }

    /// The scenario in force.
    public var current: ActiveScenario { active }

    /// The names of all loaded scenarios.
    public var scenarioNames: [String] { scenarios.keys.sorted() }

    /// Makes `name` the active scenario: clears consents, codes, tokens and events, and arms its schedule.
    public func activate(_ name: String) async throws(ScenarioError) {
        guard let scenario = scenarios[name] else {
            throw ScenarioError(
                file: "request body", path: "$.name",
                reason: "no scenario named \"\(name)\"; available: \(scenarios.keys.sorted().joined(separator: ", "))")
        }
        active = ActiveScenario(
            world: World(scenario: scenario), secrets: await ClientSecretVerifier(scenario: scenario))
        session = SessionState()
        schedule = EventSchedule(scenario: scenario)
        epoch += 1
        base = scenario
        transfers = []
        pendingTransfers = scenario.transfers
    }

    /// Adds (or replaces) a scenario sent over HTTP, after the same checks as at start-up.
    public func install(_ scenario: Scenario) throws(ScenarioError) {
        try Self.check(scenario, against: keyRing)
        scenarios[scenario.name] = scenario
    }

    /// Applies a JSON patch to the active scenario's settings in one step (the session is kept).
    public func patchSettings(_ patch: JSONValue) throws(ScenarioError) -> MockSettings {
        var reader = JSONReader()
        let settings = base.settings.applying(patch, at: .root, reader: &reader)
        if let kid = settings.signingKeyId, keyRing.key(kid) == nil {
            reader.report(
                .root.member("signingKeyId"),
                "no signing key \"\(kid)\"; keys: \(keyRing.keys.map(\.kid).joined(separator: ", "))")
        }
        guard reader.problems.isEmpty else {
            throw ScenarioError(
                problems: reader.problems.map {
                    .init(file: "request body", path: $0.path.description, reason: $0.reason)
                })
        }
        base.settings = settings
        active = ActiveScenario(world: World(scenario: base, transfers: transfers), secrets: active.secrets)
        return settings
    }

    /// Clears consents, codes, tokens and the event log, and re-arms the scenario's scheduled events.
    public func resetSession() {
        session = SessionState()
        schedule = EventSchedule(scenario: base)
        epoch += 1
        transfers = []
        pendingTransfers = base.transfers
        active = ActiveScenario(world: World(scenario: base), secrets: active.secrets)
    }

    // MARK: - Transfers

    /// Moves an app group to another team at `now`; its migration window opens.
    public func startTransfer(appGroupId: String, toTeam: String, now: Date) throws(LifecycleRefusal) -> AppTransfer {
        let world = active.world
        guard let group = world.appGroups[appGroupId] else {
            throw LifecycleRefusal(
                kind: .notFound, message: "no app group \"\(appGroupId)\" in scenario \"\(base.name)\"")
        }
        guard world.teams[toTeam] != nil else {
            throw LifecycleRefusal(kind: .notFound, message: "no team \"\(toTeam)\" in scenario \"\(base.name)\"")
        }
        guard world.transfers[appGroupId] == nil else {
            throw LifecycleRefusal(kind: .notApplicable, message: "app group \(appGroupId) was already transferred")
        }
        guard group.teamId != toTeam else {
            throw LifecycleRefusal(
                kind: .notApplicable, message: "app group \(appGroupId) already belongs to team \(toTeam)")
        }
        let transfer = AppTransfer(appGroupId: appGroupId, fromTeam: group.teamId, toTeam: toTeam, at: now)
        transfers.append(transfer)
        active = ActiveScenario(world: World(scenario: base, transfers: transfers), secrets: active.secrets)
        return transfer
    }

    /// Applies the scheduled transfers due at `now` (start-up ones at once).
    private func fireDueTransfers(now: Date) {
        let due = pendingTransfers.filter { ($0.at ?? .distantPast) <= now }
        pendingTransfers.removeAll { ($0.at ?? .distantPast) <= now }
        for scheduled in due {
            let at = scheduled.at ?? now
            let outcome: String
            do {
                _ = try startTransfer(appGroupId: scheduled.appGroupId, toTeam: scheduled.toTeam, now: at)
                outcome = "applied"
            } catch {
                outcome = "skipped: \(error.message)"
            }
            _ = schedule.append(
                EventLogEntry(
                    source: "scheduled", type: "transfer", user: "", appGroupId: scheduled.appGroupId,
                    scheduledAt: scheduled.at,
                    firedAt: now, outcome: "\(outcome) (to team \(scheduled.toTeam))", notificationIds: []))
        }
    }

    /// Every transfer so far.
    public var allTransfers: [AppTransfer] { transfers }

    // MARK: - Lifecycle events

    /// A lifecycle event that happened, and the notifications it produced (to sign and send).
    public struct FiredEvent: Sendable {
        public var logIndex: Int
        /// The log entry as it was written.
        public var entry: EventLogEntry
        /// The runtime's epoch when it fired.
        public var epoch: Int
        public var world: World
        public var drafts: [NotificationDraft]
    }

    /// Applies the scheduled events that are due at `now`; events that do not apply are logged as skipped.
    public func fireDueEvents(now: Date) -> [FiredEvent] {
        if pendingTransfers.contains(where: { ($0.at ?? .distantPast) <= now }) { fireDueTransfers(now: now) }
        guard schedule.hasDue(now: now) else { return [] }
        return schedule.takeDue(now: now).map { scheduled in
            let (drafts, outcome) = apply(scheduled.event, now: now)
            let entry = EventLogEntry(
                source: "scheduled", type: scheduled.event.kind.rawValue, user: scheduled.event.userKey,
                appGroupId: scheduled.event.appGroupId, scheduledAt: scheduled.at, firedAt: now, outcome: outcome,
                notificationIds: [])
            return fired(entry, drafts: drafts)
        }
    }

    /// Applies an event now (control plane); throws when it does not apply.
    public func applyNow(_ event: LifecycleEvent, now: Date) throws(LifecycleRefusal) -> FiredEvent {
        let drafts = try session.apply(event, world: active.world, now: now)
        let entry = EventLogEntry(
            source: "api", type: event.kind.rawValue, user: event.userKey, appGroupId: event.appGroupId,
            scheduledAt: nil,
            firedAt: now, outcome: "applied", notificationIds: [])
        return fired(entry, drafts: drafts)
    }

    private func fired(_ entry: EventLogEntry, drafts: [NotificationDraft]) -> FiredEvent {
        FiredEvent(logIndex: schedule.append(entry), entry: entry, epoch: epoch, world: active.world, drafts: drafts)
    }

    /// Records which notifications an event produced, unless a reset or switch came in between.
    public func attachNotifications(_ ids: [String], to event: FiredEvent) {
        guard event.epoch == epoch else { return }
        schedule.attach(ids, to: event.logIndex)
    }

    /// The event log and the events still scheduled.
    public var events: (log: [EventLogEntry], upcoming: [ScheduledEvent]) {
        (schedule.log, schedule.upcoming)
    }

    private func apply(_ event: LifecycleEvent, now: Date) -> ([NotificationDraft], String) {
        do {
            return (try session.apply(event, world: active.world, now: now), "applied")
        } catch {
            return ([], "skipped: \(error.message)")
        }
    }

    /// Runs `body` on the world and the session as one step, so no other request interleaves.
    public func withSession<T: Sendable>(_ body: @Sendable (World, inout SessionState) throws -> T) rethrows -> T {
        try body(active.world, &session)
    }

    private static func check(_ scenario: Scenario, against keyRing: SigningKeyRing) throws(ScenarioError) {
        if let kid = scenario.settings.signingKeyId, keyRing.key(kid) == nil {
            throw ScenarioError(
                file: scenario.source, path: "$.settings.signingKeyId",
                reason: "no signing key \"\(kid)\"; keys: \(keyRing.keys.map(\.kid).joined(separator: ", "))")
        }
    }
}
