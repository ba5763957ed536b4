import Logging
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Every namespace of the server: whole worlds (scenario, settings, clock, faults, keys, session,
/// journal, mailbox) on one store. The default namespace is the world that exists without any;
/// the others are made with `PUT /__admin/namespaces/{name}` or on first use, at most `limit`.
final class Namespaces: Sendable {
    /// The most namespaces besides the default.
    static let limit = 1000

    /// The default namespace's world.
    let defaultState: MockState
    /// The worlds opened in this process, by name.
    private let worlds = Mutex<[String: MockState]>([:])
    /// The stored records as last read, and the `client_id`s they claim.
    private let known = Mutex<Known>(Known())
    /// Held while this process writes namespace records: steps that read every record (the limit)
    /// and write one would otherwise conflict with each other on a serializable store (PostgreSQL),
    /// and 16 testers making namespaces at once retried past the step's deadline.
    private let recordWrites = AsyncLock()
    /// When each namespace was last used here, not yet written to its record.
    private let touched = Mutex<[String: Date]>([:])

    /// The records as last read from the store.
    private struct Known {
        var records: [String: NamespaceRecord] = [:]
        var claims: [String: String] = [:]
        /// When the records were read (wall clock).
        var readAt: Date = .distantPast
        /// Counts the namespaces made or deleted here, before their step and with what it changes
        /// here: a read of the records that overlapped one is not remembered (it would forget what
        /// that step did).
        var changes = 0
    }

    /// How long a record read stays fresh for another replica's namespaces and claims.
    static let refreshInterval: TimeInterval = 1

    init(defaultState: MockState) {
        self.defaultState = defaultState
    }

    private var directory: NamespaceDirectory { defaultState.directory }
    private var logger: Logger { defaultState.logger }

    // MARK: - Finding a world

    /// The world of the namespace `name` (a valid name), made from the initial scenario if it does
    /// not exist yet (refused with `limitReached` when there are `limit` already).
    func state(for name: String) async throws -> MockState {
        if name == NamespaceName.default { return defaultState }
        touch(name)
        if let world = worlds.withLock({ $0[name] }), known.withLock({ $0.records[name] != nil }) { return world }
        try await refreshIfStale()
        if known.withLock({ $0.records[name] == nil }) {
            _ = try await put(name, NamespaceOptions(), onlyIfNew: true)
        }
        return world(name)
    }

    /// The world of the namespace `name` if it exists, never made: for background work (a
    /// notification, the relay's copy) on a namespace that may have been deleted meanwhile.
    func existingState(_ name: String) async throws -> MockState? {
        if name == NamespaceName.default { return defaultState }
        if known.withLock({ $0.records[name] == nil }) { try await refresh() }
        guard known.withLock({ $0.records[name] != nil }) else { return nil }
        return world(name)
    }

    /// The world of the namespace whose codes and tokens carry `tag`, if one exists.
    func state(forTag tag: UInt32) async throws -> MockState? {
        if tag == 0 { return nil }
        var name = directory.name(ofTag: tag)
        if name == nil {
            try await refreshIfStale()
            name = directory.name(ofTag: tag)
        }
        guard let name else { return nil }
        touch(name)
        return world(name)
    }

    /// The namespace claiming `clientId`, if any.
    func namespace(claiming clientId: String) async throws -> String? {
        try await refreshIfStale()
        return known.withLock { $0.claims[clientId] }
    }

    /// The world object of an existing namespace, opened once per process.
    private func world(_ name: String) -> MockState {
        worlds.withLock { worlds in
            if let world = worlds[name] { return world }
            let world = defaultState.sibling(NamespaceScope(name: name))
            worlds[name] = world
            return world
        }
    }

    /// The worlds this process has opened, the default first.
    func openedStates() -> [MockState] {
        [defaultState] + worlds.withLock { $0.values.sorted { $0.scope.name < $1.scope.name } }
    }

    /// The worlds of every namespace, the default first.
    func allStates() async throws -> [MockState] {
        try await refresh()
        let names = known.withLock { $0.records.keys.sorted() }
        return [defaultState] + names.map(world)
    }

    // MARK: - Records

    /// Reads the records again when the last read is older than `refreshInterval`.
    private func refreshIfStale() async throws {
        let readAt = known.withLock { $0.readAt }
        if Date().timeIntervalSince(readAt) >= Self.refreshInterval { try await refresh() }
    }

    /// Reads every record from the store.
    func refresh() async throws {
        let changes = known.withLock { $0.changes }
        let records = try await defaultState.store.transaction { try await $0.list(Spaces.namespaces) }
        remember(records.map(\.value), at: Date(), changes: changes)
    }

    /// Remembers `records`, read when `changes` namespaces had been made or deleted here; a read
    /// that overlapped a change is dropped (the next one is not stale yet: it reads again).
    private func remember(_ records: [NamespaceRecord], at date: Date, changes: Int) {
        var next = Known(readAt: date, changes: changes)
        for record in records {
            next.records[record.name] = record
            for client in record.clients { next.claims[client] = record.name }
        }
        let directory = directory
        let current = known.withLock { known in
            guard known.changes == changes else { return false }
            known = next
            directory.replace(with: records.map { NamespaceScope(name: $0.name) })
            return true
        }
        guard current else { return }
        let names = Set(records.map(\.name))
        worlds.withLock { worlds in worlds = worlds.filter { names.contains($0.key) } }
    }

    /// Every namespace's record, by name.
    func records() async throws -> [NamespaceRecord] {
        try await flushUse()
        try await refresh()
        return known.withLock { $0.records.values.sorted { $0.name < $1.name } }
    }

    /// The record of `name`, if it exists.
    func record(_ name: String) async throws -> NamespaceRecord? {
        try await records().first { $0.name == name }
    }

    /// The keys every namespace publishes now (on its own clock), each `kid` once, the default
    /// namespace's first: what `/auth/keys` without a namespace publishes, so that a backend on
    /// Apple's URLs verifies tokens from any namespace. A key a namespace unpublished stays out.
    func publishedEverywhere() async throws -> ResolvedKeys {
        let home = try await defaultState.current()
        let directory = directory
        let state = defaultState
        let base = state.clock.now()
        var keys = home.keys.entries.filter { $0.entry.isPublished(at: home.now) }
        var seen = Set(keys.map(\.entry.kid))
        let others = try await state.base.transaction { raw in
            var found: [(entry: KeyRoster.Entry, key: SigningKey)] = []
            let listing = try await ScopedTransaction(raw, scope: .default, directory: directory).list(
                Spaces.namespaces)
            for (name, _) in listing {
                let scope = NamespaceScope(name: name)
                let own = ScopedTransaction(raw, scope: scope, directory: directory)
                guard let control = try await own.get(Spaces.control, ControlState.key) else { continue }
                let now = control.now(base: base)
                let roster =
                    control.keys ?? KeyRoster.bundled(state.catalog.keyRing, signingKid: "").renamed(scope.bundledKid)
                for entry in roster.entries where entry.isPublished(at: now) {
                    let key: SigningKey?
                    switch entry.origin {
                    case .bundled: key = state.keyCache.bundledKey(entry.kid, in: scope, ring: state.catalog.keyRing)
                    case .generated:
                        key = try await state.keyCache.key(entry.kid) {
                            try await own.get(Spaces.generatedKeys, entry.kid)?.pem
                        }
                    }
                    var published = entry
                    published.retiresAt = nil  // checked on the namespace's own clock
                    if let key { found.append((published, key)) }
                }
            }
            return found
        }
        for other in others where seen.insert(other.entry.kid).inserted { keys.append(other) }
        return ResolvedKeys(signing: home.keys.signing, entries: keys)
    }

    /// The control records of `scopes`, in one step (`nil` where a namespace has none).
    func controls(of scopes: [NamespaceScope]) async throws -> [ControlState?] {
        let directory = directory
        return try await defaultState.base.transaction { raw in
            var controls: [ControlState?] = []
            for scope in scopes {
                let own = ScopedTransaction(raw, scope: scope, directory: directory)
                controls.append(try await own.get(Spaces.control, ControlState.key))
            }
            return controls
        }
    }

    /// Makes the namespace `name` or changes it as `options` says; returns its record and whether
    /// it was made. With `onlyIfNew`, an existing namespace is left as it is.
    @discardableResult
    func put(_ name: String, _ options: NamespaceOptions, onlyIfNew: Bool = false) async throws -> (
        record: NamespaceRecord, created: Bool
    ) {
        try await recordWrites.withLock { try await putAlone(name, options, onlyIfNew: onlyIfNew) }
    }

    /// `put`, holding `recordWrites`.
    private func putAlone(_ name: String, _ options: NamespaceOptions, onlyIfNew: Bool) async throws -> (
        record: NamespaceRecord, created: Bool
    ) {
        let scope = NamespaceScope(name: name)
        let directory = directory
        let catalog = defaultState.catalog
        let initialScenario = defaultState.initialScenario
        let now = Date()
        known.withLock { $0.changes += 1 }
        let result = try await defaultState.base.transaction { raw in
            let home = ScopedTransaction(raw, scope: .default, directory: directory)
            let own = ScopedTransaction(raw, scope: scope, directory: directory)
            let existing = try await home.get(Spaces.namespaces, name)
            if let existing, onlyIfNew { return (existing, false) }
            if existing == nil {
                guard try await home.count(Spaces.namespaces) < Self.limit else {
                    throw ControlRefusal.limitReached(
                        "there are \(Self.limit) namespaces already; delete one, or let the idle ones expire",
                        limit: Self.limit)
                }
                if let clash = directory.name(ofTag: scope.tag), clash != name {
                    throw ControlRefusal.notApplicable(
                        "the namespace \"\(name)\" would share its token tag with \"\(clash)\"; choose another name")
                }
            }
            if let clients = options.clients, !clients.isEmpty {
                for (other, record) in try await home.list(Spaces.namespaces) where other != name {
                    if let client = clients.first(where: record.clients.contains) {
                        throw ControlRefusal.notApplicable(
                            "client_id \"\(client)\" is claimed by the namespace \"\(other)\"; a client_id belongs to one namespace"
                        )
                    }
                }
            }
            var record =
                existing
                ?? NamespaceRecord(
                    name: name, clients: [], idleTtlSeconds: NamespaceOptions.defaultIdleTtlSeconds, createdAt: now,
                    lastUsedAt: now)
            if let clients = options.clients { record.clients = clients }
            if let ttl = options.idleTtlSeconds { record.idleTtlSeconds = ttl }
            record.lastUsedAt = now
            try await home.put(Spaces.namespaces, name, record)
            var control =
                try await own.get(Spaces.control, ControlState.key) ?? ControlState(scenario: initialScenario)
            let stored = try await own.get(Spaces.control, ControlState.key)
            if stored == nil { control.identities = .own }
            if let scenario = options.scenario, scenario != control.scenario || stored == nil {
                let uploaded = try await own.get(Spaces.uploadedScenarios, scenario) != nil
                guard catalog.bundled[scenario] != nil || uploaded else {
                    throw ControlRefusal.invalidBody(
                        "no scenario named \"\(scenario)\"; available: \(catalog.bundled.keys.sorted().joined(separator: ", "))",
                        at: "$.scenario")
                }
                if stored != nil { try await own.clear(Spaces.session) }
                control = stored == nil ? control : control.switched(to: scenario)
                control.scenario = scenario
            }
            if let identities = options.identities { control.identities = identities }
            if control != stored { try await own.put(Spaces.control, ControlState.key, control) }
            return (record, existing == nil)
        }
        if result.1 { logger.info("namespace made", metadata: ["idp.namespace": .string(name)]) }
        known.withLock { known in
            known.changes += 1
            if result.1 { directory.insert(scope) }
            if let old = known.records[name] { for client in old.clients { known.claims[client] = nil } }
            known.records[name] = result.0
            for client in result.0.clients { known.claims[client] = name }
        }
        return (result.0, result.1)
    }

    /// Forgets the namespace `name` and all its state; `false` if it did not exist.
    func delete(_ name: String) async throws -> Bool {
        try await recordWrites.withLock { try await deleteAlone(name, idleAt: nil) }
    }

    /// `delete`, holding `recordWrites`; with `idleAt`, only if the namespace is still idle past its
    /// idle time at that instant, as stored when the step runs.
    private func deleteAlone(_ name: String, idleAt now: Date?) async throws -> Bool {
        let scope = NamespaceScope(name: name)
        let directory = directory
        known.withLock { $0.changes += 1 }
        // nil: kept (used since it was found idle); false: there was none.
        let existed = try await defaultState.base.transaction { raw -> Bool? in
            let home = ScopedTransaction(raw, scope: .default, directory: directory)
            guard let record = try await home.get(Spaces.namespaces, name) else { return false }
            if let now, now.timeIntervalSince(record.lastUsedAt) <= Double(record.idleTtlSeconds) { return nil }
            try await home.delete(Spaces.namespaces, name)
            try await ScopedTransaction(raw, scope: scope, directory: directory).clear(Spaces.registered.map(\.name))
            return true
        }
        guard let existed else { return false }
        known.withLock { known in
            known.changes += 1
            directory.remove(scope)
            if let old = known.records.removeValue(forKey: name) {
                for client in old.clients { known.claims[client] = nil }
            }
        }
        _ = worlds.withLock { $0.removeValue(forKey: name) }
        _ = touched.withLock { $0.removeValue(forKey: name) }
        if existed { logger.info("namespace deleted", metadata: ["idp.namespace": .string(name)]) }
        return existed
    }

    // MARK: - Use and idleness

    /// Deletes codes and tokens that expired in every namespace. The store sweeps by one instant
    /// for all, so by the earliest of the namespaces' clocks (one may be behind another); each
    /// namespace still refuses its values once they expired on its own clock.
    func sweep() async throws -> Int {
        let directory = directory
        let base = defaultState.clock.now()
        let earliest = try await defaultState.base.transaction { raw in
            let home = ScopedTransaction(raw, scope: .default, directory: directory)
            var earliest = try await home.get(Spaces.control, ControlState.key)?.now(base: base) ?? base
            for (name, _) in try await home.list(Spaces.namespaces) {
                let own = ScopedTransaction(raw, scope: NamespaceScope(name: name), directory: directory)
                if let now = try await own.get(Spaces.control, ControlState.key)?.now(base: base), now < earliest {
                    earliest = now
                }
            }
            return earliest
        }
        return try await defaultState.store.sweep(expiredBefore: earliest)
    }

    /// Notes that `name` was used now (written to its record by `flushUse`).
    func touch(_ name: String) {
        guard name != NamespaceName.default else { return }
        let now = Date()
        touched.withLock { $0[name] = now }
    }

    /// Writes when each namespace touched since the last call was last used.
    func flushUse() async throws {
        try await recordWrites.withLock { try await flushUseAlone() }
    }

    /// `flushUse`, holding `recordWrites`.
    private func flushUseAlone() async throws {
        let uses = touched.withLock { touched in
            defer { touched = [:] }
            return touched
        }
        guard !uses.isEmpty else { return }
        do {
            try await defaultState.store.transaction { transaction in
                for (name, at) in uses {
                    guard var record = try await transaction.get(Spaces.namespaces, name), record.lastUsedAt < at
                    else { continue }
                    record.lastUsedAt = at
                    try await transaction.put(Spaces.namespaces, name, record)
                }
            }
        } catch {
            touched.withLock { touched in
                for (name, at) in uses where (touched[name] ?? .distantPast) < at { touched[name] = at }
            }
            throw error
        }
    }

    /// Deletes the namespaces unused for longer than their idle time at `now`; returns their names.
    func removeIdle(now: Date = Date()) async throws -> [String] {
        try await flushUse()
        try await refresh()
        let idle = known.withLock { known in
            known.records.values.filter { now.timeIntervalSince($0.lastUsedAt) > Double($0.idleTtlSeconds) }.map(\.name)
        }
        var removed: [String] = []
        // Each is checked again in its step: one used meanwhile (here or on a replica that wrote
        // its use) stays.
        for name in idle.sorted() where touched.withLock({ $0[name] == nil }) {
            guard try await recordWrites.withLock({ try await deleteAlone(name, idleAt: now) }) else { continue }
            removed.append(name)
            logger.info("idle namespace removed", metadata: ["idp.namespace": .string(name)])
        }
        return removed
    }
}
