import Foundation
import Logging
import Synchronization

/// The one owner of the mock's mutable state. Every change is one step on the store (memory, SQLite
/// or PostgreSQL); the rules are `Session` and `GrantRules`. Requests read the control record when
/// they start, so what the control plane changed through any replica is in force for them.
public final class MockState: Sendable {
    let store: any StateStore
    let catalog: ScenarioCatalog
    /// The base clock; the control record's offset is added on top.
    let clock: MockClock
    let logger: Logger
    /// The newest epoch seen here, for cutting short deliveries a reset made void.
    let epochs = EpochWatch()
    private let cached = Mutex<ActiveScenario?>(nil)

    /// Opens the state on `store`: a new store starts with `initialScenario`; a durable one keeps the
    /// scenario, settings, clock and session it had.
    static func open(
        store: any StateStore, catalog: ScenarioCatalog, initialScenario: String, clock: MockClock, logger: Logger
    ) async throws -> MockState {
        @Sendable func refuseUnknown() throws(ScenarioError) {
            guard catalog.bundled[initialScenario] == nil else { return }
            throw ScenarioError(
                file: initialScenario,
                reason:
                    "no scenario named \"\(initialScenario)\"; available: \(catalog.bundled.keys.sorted().joined(separator: ", "))"
            )
        }
        let state = MockState(store: store, catalog: catalog, clock: clock, logger: logger)
        try await store.transaction { transaction in
            guard let control = try await transaction.get(Spaces.control, ControlState.key) else {
                try refuseUnknown()
                try await transaction.put(Spaces.control, ControlState.key, ControlState(scenario: initialScenario))
                return
            }
            let known =
                try await transaction.get(Spaces.uploadedScenarios, control.scenario) != nil
                || catalog.bundled[control.scenario] != nil
            if !known {
                try refuseUnknown()
                logger.warning(
                    "stored scenario is gone; switching",
                    metadata: ["idp.scenario": .string(control.scenario), "idp.to": .string(initialScenario)])
                try await transaction.clear(Spaces.session)
                try await transaction.put(Spaces.control, ControlState.key, control.switched(to: initialScenario))
            }
        }
        let active = try await state.current()
        if active.control.scenario != initialScenario {
            logger.notice(
                "kept the stored scenario", metadata: ["idp.scenario": .string(active.control.scenario)])
        }
        return state
    }

    private init(store: any StateStore, catalog: ScenarioCatalog, clock: MockClock, logger: Logger) {
        self.store = store
        self.catalog = catalog
        self.clock = clock
        self.logger = logger
    }

    // MARK: - Reading

    /// The state in force now (the world is rebuilt only when the control record changed).
    public func current() async throws -> ActiveScenario {
        let known = cached.withLock { $0 }
        let (revision, value) = try await store.control(ifChangedFrom: known?.revision)
        if let known, value == nil { return known }
        guard let value else { throw StoreUnavailable(cause: "the control record is missing") }
        let active = try await resolve(value, revision: revision, uploads: nil)
        cached.withLock { current in
            if (current?.revision ?? .min) <= revision { current = active }
        }
        epochs.observe(value.epoch)
        return active
    }

    /// The world of `control`: its scenario (from the folder, or as uploaded) with the settings patch
    /// and transfers applied.
    private func resolve(_ control: ControlState, revision: Int64, uploads: (any StateTransaction)?) async throws
        -> ActiveScenario
    {
        // Uploads may shadow a bundled scenario of the same name, so the store is always asked.
        let upload: UploadedScenario?
        if let uploads {
            upload = try await uploads.get(Spaces.uploadedScenarios, control.scenario)
        } else {
            upload = try await store.transaction { try await $0.get(Spaces.uploadedScenarios, control.scenario) }
        }
        var scenario: Scenario
        if let upload {
            scenario = try catalog.parse(upload, name: control.scenario)
        } else if let bundled = catalog.bundled[control.scenario] {
            scenario = bundled
        } else {
            throw StoreUnavailable(
                cause: "the active scenario \(control.scenario) is in neither the folder nor the store")
        }
        let secrets = await catalog.verifier(for: scenario, upload: upload)
        var reader = JSONReader()
        scenario.settings = scenario.settings.applying(.object(control.settingsPatch), at: .root, reader: &reader)
        return ActiveScenario(
            world: World(scenario: scenario, transfers: control.transfers), secrets: secrets, control: control,
            revision: revision, clock: clock, upload: upload)
    }

    /// Runs `body` on the session as one step of the store, in the world `active` (refused if a reset
    /// or switch came in between).
    public func withSession<T: Sendable>(
        _ active: ActiveScenario, _ body: @escaping @Sendable (Session, World) async throws -> T
    ) async throws -> T {
        try await store.transaction { transaction in
            let control = try await transaction.get(Spaces.control, ControlState.key)
            guard control?.epoch == active.control.epoch else {
                throw OAuthError.invalidRequest("the scenario was reset or switched while this request ran")
            }
            return try await body(Session(transaction: transaction), active.world)
        }
    }

    /// Runs `body` on the control record and the session as one step; `body` sees the world of the
    /// control record as stored and returns the record to write (`nil`: unchanged).
    private func changeControl<T: Sendable>(
        _ body: @escaping @Sendable (inout ControlState, ActiveScenario, any StateTransaction) async throws -> T
    ) async throws -> T {
        let result = try await store.transaction { transaction in
            guard let stored = try await transaction.get(Spaces.control, ControlState.key) else {
                throw StoreUnavailable(cause: "the control record is missing")
            }
            let active = try await self.resolve(stored, revision: -1, uploads: transaction)
            var control = stored
            let result = try await body(&control, active, transaction)
            if control != stored { try await transaction.put(Spaces.control, ControlState.key, control) }
            return (result, control.epoch)
        }
        epochs.observe(result.1)
        return result.0
    }

    // MARK: - Scenarios and settings

    /// The names of every scenario: the folder's and the uploaded ones.
    public func scenarioNames() async throws -> [String] {
        let uploaded = try await store.transaction { try await $0.list(Spaces.uploadedScenarios).map(\.key) }
        return Set(catalog.bundled.keys).union(uploaded).sorted()
    }

    /// Makes `name` the active scenario: consents, codes, tokens, events and notifications are cleared
    /// and its schedule armed, in one step.
    public func activate(_ name: String) async throws {
        try await changeControl { control, _, transaction in
            let uploaded = try await transaction.get(Spaces.uploadedScenarios, name) != nil
            guard uploaded || self.catalog.bundled[name] != nil else {
                let names = Set(self.catalog.bundled.keys).union(
                    try await transaction.list(Spaces.uploadedScenarios).map(\.key))
                throw ScenarioError(
                    file: "request body", path: "$.name",
                    reason: "no scenario named \"\(name)\"; available: \(names.sorted().joined(separator: ", "))")
            }
            try await transaction.clear(Spaces.session)
            control = control.switched(to: name)
        }
    }

    /// Adds (or replaces) a scenario sent over HTTP, after the same checks as at start-up, and makes
    /// it active when asked. The active scenario is replaced only together with activating it.
    public func install(json: String, name: String, activate: Bool) async throws {
        _ = try catalog.parse(UploadedScenario(json: json), name: name)
        try await changeControl { control, _, transaction in
            if control.scenario == name && !activate {
                throw LifecycleRefusal(
                    kind: .notApplicable,
                    message: "scenario \"\(name)\" is active; replace it with ?activate=true (which resets the session)"
                )
            }
            try await transaction.put(Spaces.uploadedScenarios, name, UploadedScenario(json: json))
            if activate {
                try await transaction.clear(Spaces.session)
                control = control.switched(to: name)
            }
        }
    }

    /// Applies a JSON patch to the active scenario's settings in one step (the session is kept).
    public func patchSettings(_ patch: JSONValue) async throws -> MockSettings {
        let keyRing = catalog.keyRing
        return try await changeControl { control, active, _ in
            var reader = JSONReader()
            var base = active.world.scenario
            base.settings = self.catalog.bundled[base.name]?.settings ?? base.settings
            let settings = active.world.settings.applying(patch, at: .root, reader: &reader)
            if let kid = settings.signingKeyId, keyRing.key(kid) == nil {
                reader.report(
                    .root.member("signingKeyId"),
                    "no signing key \"\(kid)\"; keys: \(keyRing.keys.map(\.kid).joined(separator: ", "))")
            }
            try AdminBody.check(reader)
            if case .object(let members) = patch {
                control.settingsPatch.merge(members) { _, new in new }
            }
            return settings
        }
    }

    /// Clears consents, codes, tokens, events and notifications and re-arms the scenario's schedule,
    /// in one step; deliveries under way are cut short.
    public func reset() async throws {
        try await changeControl { control, _, transaction in
            try await transaction.clear(Spaces.session)
            control = control.reset()
        }
    }

    // MARK: - Clock

    /// What to do with the mock's clock.
    public enum ClockChange: Sendable {
        case advance(seconds: Double)
        case set(Date)
        case reset
    }

    /// Moves the mock's clock for every replica; false (and no change) if it would leave
    /// `MockClock.validRange`. Scheduled events that became due fire at once.
    public func moveClock(_ change: ClockChange) async throws -> Bool {
        let base = clock.now()
        let moved = try await changeControl { control, _, _ in
            let offset: Double
            switch change {
            case .advance(let seconds): offset = control.clockOffsetSeconds + seconds
            case .set(let instant): offset = instant.timeIntervalSince(base)
            case .reset: offset = 0
            }
            guard offset.isFinite, MockClock.validRange.contains(base.addingTimeInterval(offset)) else { return false }
            control.clockOffsetSeconds = offset
            return true
        }
        if moved { try await fireDueEvents() }
        return moved
    }

    // MARK: - Transfers

    /// Moves an app group to another team now; its migration window opens.
    public func startTransfer(appGroupId: String, toTeam: String) async throws -> AppTransfer {
        try await changeControl { control, active, _ in
            try Self.transfer(
                appGroupId: appGroupId, toTeam: toTeam, at: active.now, in: active.world, control: &control)
        }
    }

    private static func transfer(
        appGroupId: String, toTeam: String, at instant: Date, in world: World, control: inout ControlState
    ) throws(LifecycleRefusal) -> AppTransfer {
        let name = world.scenario.name
        guard let group = world.appGroups[appGroupId] else {
            throw LifecycleRefusal(kind: .notFound, message: "no app group \"\(appGroupId)\" in scenario \"\(name)\"")
        }
        guard world.teams[toTeam] != nil else {
            throw LifecycleRefusal(kind: .notFound, message: "no team \"\(toTeam)\" in scenario \"\(name)\"")
        }
        guard world.transfers[appGroupId] == nil else {
            throw LifecycleRefusal(kind: .notApplicable, message: "app group \(appGroupId) was already transferred")
        }
        guard group.teamId != toTeam else {
            throw LifecycleRefusal(
                kind: .notApplicable, message: "app group \(appGroupId) already belongs to team \(toTeam)")
        }
        let transfer = AppTransfer(appGroupId: appGroupId, fromTeam: group.teamId, toTeam: toTeam, at: instant)
        control.transfers.append(transfer)
        return transfer
    }

    // MARK: - Lifecycle events

    /// Applies the scenario's scheduled transfers and events that are due on the mock's clock, in one
    /// step; events that do not apply are logged as skipped.
    public func fireDueEvents() async throws {
        let active = try await current()
        guard active.hasDueWork(at: active.now) else { return }
        try await changeControl { [self] control, active, transaction in
            let now = active.now
            var world = active.world
            for scheduled in active.scheduledTransfers.dropFirst(control.firedTransfers) {
                guard (scheduled.at ?? .distantPast) <= now else { break }
                control.firedTransfers += 1
                let outcome: String
                do throws(LifecycleRefusal) {
                    _ = try Self.transfer(
                        appGroupId: scheduled.appGroupId, toTeam: scheduled.toTeam, at: scheduled.at ?? now, in: world,
                        control: &control)
                    world = World(scenario: world.scenario, transfers: control.transfers)
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
                } catch let refusal as LifecycleRefusal {
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
    public func applyNow(_ event: LifecycleEvent) async throws -> EventLogEntry {
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
    public func events() async throws -> (log: [EventLogEntry], upcoming: [ScheduledEvent]) {
        let active = try await current()
        let log = try await store.transaction { try await $0.list(Spaces.eventLog).map(\.value) }
        return (log, Array(active.upcomingEvents))
    }

    private func log(_ entry: EventLogEntry, settings: MockSettings, transaction: any StateTransaction) async throws {
        try await transaction.put(Spaces.eventLog, entry.id, entry)
        try await transaction.prune(Spaces.eventLog, keep: settings.historyLimit)
    }

    // MARK: - Notifications

    /// Files notifications for `drafts` (unsigned: they are signed when sent); returns their ids.
    private func enqueue(
        _ drafts: [NotificationDraft], world: World, now: Date, epoch: Int, transaction: any StateTransaction
    ) async throws -> [String] {
        var ids: [String] = []
        for draft in drafts {
            guard let group = world.appGroups[draft.appGroupId] else { continue }
            let claims = NotificationClaims(
                draft: draft, audience: group.primaryBundleId, now: now, settings: world.settings)
            let record = NotificationRecord(
                id: claims.jti, appGroupId: group.id, url: group.notificationUrl,
                type: draft.kind.notificationType(world.settings), sub: draft.sub, claims: claims, payload: nil,
                createdAt: now,
                status: group.notificationUrl == nil ? .noURL : .pending, attempts: [], nextAttemptAt: nil, lease: nil,
                epoch: epoch)
            try await transaction.put(Spaces.outbox, record.id, record, index: record.index)
            ids.append(record.id)
        }
        if !ids.isEmpty { try await transaction.prune(Spaces.outbox, keep: world.settings.historyLimit) }
        return ids
    }

    /// Every notification in the outbox, oldest first.
    public func notifications() async throws -> [NotificationRecord] {
        try await store.transaction { try await $0.list(Spaces.outbox).map(\.value) }
    }

    /// One notification.
    public func notification(_ id: String) async throws -> NotificationRecord? {
        try await store.transaction { try await $0.get(Spaces.outbox, id) }
    }

    /// Queues a notification for delivery again (keeping its attempt history).
    public func redeliver(_ id: String) async throws -> NotificationRecord {
        try await store.transaction { transaction in
            guard var record = try await transaction.get(Spaces.outbox, id) else {
                throw LifecycleRefusal(kind: .notFound, message: "no notification \"\(id)\"")
            }
            guard record.url != nil else {
                throw LifecycleRefusal(
                    kind: .notApplicable, message: "app group \(record.appGroupId) has no notificationUrl")
            }
            guard record.status != .delivering else {
                throw LifecycleRefusal(kind: .notApplicable, message: "notification \(id) is being delivered right now")
            }
            record.status = .pending
            record.nextAttemptAt = nil
            try await transaction.put(Spaces.outbox, id, record, index: record.index)
            return record
        }
    }

    /// Takes notifications due for delivery under a lease named `claim`.
    func claimDueNotifications(claim: String, lease: Duration, limit: Int) async throws -> [NotificationRecord] {
        let now = Date()
        let seconds = Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18
        return try await store.claimDue(
            Spaces.outbox, now: now, leaseUntil: now.addingTimeInterval(seconds), limit: limit
        ) { record in
            record.status = .delivering
            record.lease = claim
        }.map(\.value)
    }

    /// Records a delivery attempt, if the lease `claim` still holds the notification.
    func finishDelivery(
        _ id: String, claim: String, attempt: NotificationRecord.Attempt, payload: String?,
        policy: NotificationRecord.RetryPolicy
    ) async throws {
        try await store.transaction { transaction in
            guard var record = try await transaction.get(Spaces.outbox, id), record.lease == claim else { return }
            record.finish(attempt, payload: payload, policy: policy)
            try await transaction.put(Spaces.outbox, id, record, index: record.index)
        }
    }

    // MARK: - Housekeeping

    /// Deletes codes and tokens that expired on the mock's clock; returns how many.
    func sweep() async throws -> Int {
        try await store.sweep(expiredBefore: try await current().now)
    }
}
