import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The one owner of the mock's mutable state. Every change is one step on the store (memory, SQLite
/// or PostgreSQL); the rules are `Session` and `GrantRules`. Requests read the control record when
/// they start, so what the control plane changed through any replica is in force for them.
///
/// One `MockState` is one namespace's world (`scope`); the default namespace's is opened first, and
/// `Namespaces` opens the others beside it on the same store, sharing the catalog, clock, caches
/// and metrics.
final class MockState: Sendable {
    /// The store as this namespace sees it (`ScopedStore`).
    let store: any StateStore
    /// The store every namespace shares.
    let base: any StateStore
    /// `base` when other processes write it too (PostgreSQL), found once.
    let shared: (any SharedStore)?
    /// The namespace this state is the world of.
    let scope: NamespaceScope
    /// The keys that find a namespace (the tag of its codes and tokens, its claims, its users'
    /// relay addresses and `transfer_sub`s).
    let directory: NamespaceLocator
    let catalog: ScenarioCatalog
    /// The base clock; the control record's offset is added on top.
    let clock: MockClock
    let logger: Logger
    /// The scenario the server started with: a new namespace starts with it.
    let initialScenario: String
    /// The newest epoch seen here, for cutting short deliveries a reset made void.
    let epochs = EpochWatch()
    /// Generated signing keys, parsed once.
    let keyCache: KeyCache
    /// What `GET /metrics` shows: Apple calls, issuance, notifications, store steps.
    let metrics: MockMetrics
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
        let state = MockState(
            base: store, scope: .default, directory: NamespaceLocator(), catalog: catalog, clock: clock,
            logger: logger, initialScenario: initialScenario, keyCache: KeyCache(), metrics: MockMetrics())
        try await state.store.transaction { transaction in
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

    private init(
        base: any StateStore, scope: NamespaceScope, directory: NamespaceLocator, catalog: ScenarioCatalog,
        clock: MockClock, logger: Logger, initialScenario: String, keyCache: KeyCache, metrics: MockMetrics
    ) {
        self.base = base
        self.shared = base as? any SharedStore
        self.store = ScopedStore(base: base, scope: scope, directory: directory)
        self.scope = scope
        self.directory = directory
        self.catalog = catalog
        self.clock = clock
        self.logger = logger
        self.initialScenario = initialScenario
        self.keyCache = keyCache
        self.metrics = metrics
    }

    /// The world of the namespace `scope` on the same store, sharing this state's catalog, clock,
    /// caches and metrics (its control record is written by `Namespaces`).
    func sibling(_ scope: NamespaceScope) -> MockState {
        MockState(
            base: base, scope: scope, directory: directory, catalog: catalog, clock: clock,
            logger: logger, initialScenario: initialScenario, keyCache: keyCache, metrics: metrics)
    }

    // MARK: - Reading

    /// What a missing control record means: a namespace deleted (here, on another replica, or by the
    /// idle sweep) while this process held its world (`NamespaceGone`, never an outage), or a default
    /// namespace without its record (a store someone emptied: `StoreUnavailable`).
    var controlMissing: any Error {
        scope.isDefault
            ? StoreUnavailable(cause: ControlMissing().description) : NamespaceGone(name: scope.name)
    }

    /// The state in force now (the world is rebuilt only when the control record changed). With
    /// `confirmation` (an `/auth/*` call on a store where reading the control record is a round
    /// trip), the record last read here, unread, for the call's steps to confirm.
    func current(confirming confirmation: ControlConfirmation? = nil) async throws -> ActiveScenario {
        let known = cached.withLock { $0 }
        if let known, let confirmation, confirmsControlAtCommit, confirmation.use(known.control) {
            return known.confirming(confirmation)
        }
        let revision: Int64
        let read: ControlState?
        do {
            (revision, read) = try await store.control(ifChangedFrom: known?.revision)
        } catch is ControlMissing {
            throw controlMissing
        }
        if let known, read == nil { return known }
        guard let value = read else { throw controlMissing }
        // Another namespace's change moves the revision of a memory store: the world is kept.
        let active =
            if let known, known.control == value { known.revised(revision) } else {
                try await resolve(value, revision: revision, uploads: nil)
            }
        cached.withLock { current in
            if (current?.revision ?? .min) <= revision { current = active }
        }
        if !scope.isDefault { directory.index(active.world, control: value, of: scope.name) }
        epochs.observe(value.epoch)
        return active
    }

    /// Whether `/auth/*` calls are answered on the control record last read here and confirm it at
    /// their end (`SharedStore.confirmsControlAtCommit`).
    var confirmsControlAtCommit: Bool { shared?.confirmsControlAtCommit ?? false }

    /// `read` (the state read when a request started), or the state in force now.
    func current(or read: ActiveScenario?) async throws -> ActiveScenario {
        if let read { return read }
        return try await current()
    }

    /// The world of `control`: its scenario (from the folder, or as uploaded) with the settings patch
    /// and transfers applied.
    func resolve(_ control: ControlState, revision: Int64, uploads: (any StateTransaction)?) async throws
        -> ActiveScenario
    {
        // Uploads may shadow a bundled scenario of the same name, so the store is always asked.
        let upload: UploadedScenario?
        if let uploads {
            upload = try await uploads.get(Spaces.uploadedScenarios, control.scenario)
        } else {
            upload = try await store.transaction { try await $0.get(Spaces.uploadedScenarios, control.scenario) }
        }
        guard let (found, secrets) = try await catalog.scenario(named: control.scenario, upload: upload) else {
            throw try await missing(
                StoreUnavailable(
                    cause: "the active scenario \(control.scenario) is in neither the folder nor the store"),
                outside: uploads)
        }
        var scenario = found
        var reader = JSONReader()
        scenario.settings = scenario.settings.applying(.object(control.settingsPatch), at: .root, reader: &reader)
        let roster = control.keys ?? defaultRoster(settings: scenario.settings)
        let keys: ResolvedKeys
        do {
            keys = try await resolveKeys(roster, transaction: uploads)
        } catch let error as StoreUnavailable {
            throw try await missing(error, outside: uploads)
        }
        return ActiveScenario(
            world: World(
                scenario: scenario, transfers: control.transfers,
                identityNamespace: control.identities == .own ? scope.name : nil),
            secrets: secrets, keys: keys,
            control: control, revision: revision, clock: clock, upload: upload)
    }

    /// `error`, unless what was missing went with the namespace: read outside a step (`within` is
    /// nil) after the control record, an upload or a generated key of a namespace deleted
    /// meanwhile is gone too (`controlMissing`, never an outage).
    private func missing(_ error: StoreUnavailable, outside within: (any StateTransaction)?) async throws -> any Error {
        guard !scope.isDefault, within == nil else { return error }
        let control = try await store.transaction { try await $0.get(Spaces.control, ControlState.key) }
        return control == nil ? controlMissing : error
    }

    /// The bundled keys, all published, signing with `settings.signingKeyId` or the first by name.
    /// In a namespace other than the default, the bundled keys go by the shared `kid`s
    /// (`NamespaceScope.sharedKid`) until the namespace changes its keys.
    func defaultRoster(settings: MockSettings) -> KeyRoster {
        let ring = catalog.keyRing
        guard !scope.isDefault else { return KeyRoster.bundled(ring, settings: settings) }
        // The settings name a bundled key by a kid the namespace's key listing shows or showed (a
        // settings patch) or by its file's name (a scenario file).
        let named = settings.signingKeyId.flatMap { ring.key($0) ?? scope.bundledKey(named: $0, in: ring) }
        return KeyRoster.bundled(ring, signingKid: (named ?? ring.keys[0]).kid).renamed(NamespaceScope.sharedKid)
    }

    /// The private halves of the roster's keys: bundled ones from the ring, generated ones from the
    /// store (parsed once per process).
    private func resolveKeys(_ roster: KeyRoster, transaction: (any StateTransaction)?) async throws -> ResolvedKeys {
        var entries: [(entry: KeyRoster.Entry, key: SigningKey)] = []
        for entry in roster.entries {
            let key: SigningKey?
            switch entry.origin {
            case .bundled: key = keyCache.bundledKey(entry.kid, in: scope, ring: catalog.keyRing)
            case .generated:
                key = try await keyCache.key(entry.kid) {
                    if let transaction { return try await transaction.get(Spaces.generatedKeys, entry.kid)?.pem }
                    return try await store.transaction { try await $0.get(Spaces.generatedKeys, entry.kid)?.pem }
                }
            }
            if let key { entries.append((entry, key)) }
        }
        guard let signing = entries.first(where: { $0.entry.kid == roster.signingKid })?.key ?? entries.first?.key
        else { throw StoreUnavailable(cause: "no signing key in the stored key roster") }
        return ResolvedKeys(signing: signing, entries: entries)
    }

    /// Runs `body` on the session as one step of the store, in the world `active` (refused with
    /// `SessionChanged` if a reset or switch came in between).
    func withSession<T: Sendable>(
        _ active: ActiveScenario, _ body: @escaping @Sendable (Session, World) async throws -> T
    ) async throws -> T {
        let started = ContinuousClock.now
        defer { metrics.storeStep(.session, ContinuousClock.now - started) }
        let confirmation = active.confirmation
        do {
            let result = try await store.transaction { transaction in
                guard let stored = try await transaction.get(Spaces.control, ControlState.key) else {
                    throw self.controlMissing
                }
                try Self.require(stored, of: active, confirmation)
                return try await body(Session(transaction: transaction), active.world)
            }
            confirmation?.confirm()
            return result
        } catch {
            // A refusal stands only on what the step read as current, the control record included;
            // a step the database failed may have committed: either way the call is not run again.
            if !(error is ControlStale || error is SessionChanged) { confirmation?.confirm() }
            throw error
        }
    }

    /// Inside a step: refuses unless `stored`, the control record as the step read it, is the one
    /// `active` was built on: the same epoch (else `SessionChanged`), or while the request rests on
    /// a record it did not read (`confirmation`), the same record (else `ControlStale`).
    static func require(_ stored: ControlState?, of active: ActiveScenario, _ confirmation: ControlConfirmation?)
        throws
    {
        if confirmation?.isTentative == true {
            guard stored == active.control else { throw ControlStale() }
        } else {
            guard stored?.epoch == active.control.epoch else { throw SessionChanged() }
        }
    }

    /// Runs `body` on the control record and the session as one step; `body` sees the world of the
    /// control record as stored and returns the record to write (`nil`: unchanged).
    func changeControl<T: Sendable>(
        _ body: @escaping @Sendable (inout ControlState, ActiveScenario, any StateTransaction) async throws -> T
    ) async throws -> T {
        let result = try await store.transaction { transaction in
            guard let stored = try await transaction.get(Spaces.control, ControlState.key) else {
                throw self.controlMissing
            }
            let active = try await self.resolve(stored, revision: -1, uploads: transaction)
            var control = stored
            let result = try await body(&control, active, transaction)
            if control != stored { try await transaction.put(Spaces.control, ControlState.key, control) }
            return (result, control.epoch, control != stored)
        }
        epochs.observe(result.1)
        // The next request reads the record this step wrote (a request that confirms it at its end
        // would otherwise be answered on the one before, and run again).
        if result.2 {
            cached.withLock { $0 = nil }
            if !scope.isDefault { directory.controlChanged(scope.name) }
        }
        return result.0
    }
}
