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
/// Its jobs are each another type's: the opened worlds (`NamespaceWorlds`), the records
/// (`NamespaceRecordCache`), the keys that find a namespace (`NamespaceLocator`), the rules
/// (`NamespaceRules`) and the steps that write them (`NamespaceSteps`), use and idleness
/// (`NamespaceUse`), and reads across namespaces (`EveryNamespace`); this type finds a world and
/// keeps them in step.
final class Namespaces: Sendable {
    /// The most namespaces besides the default.
    static let limit = NamespaceRules.limit
    /// How long a record read stays fresh for another replica's namespaces and claims.
    static let refreshInterval = NamespaceRecordCache.refreshInterval

    /// The default namespace's world.
    var defaultState: MockState { worlds.home }
    let worlds: NamespaceWorlds
    let recordCache: NamespaceRecordCache
    let use: NamespaceUse
    let everyNamespace: EveryNamespace
    /// The steps that make, change and delete a namespace.
    let steps: NamespaceSteps
    /// What the other namespaces publish in the unprefixed `/auth/keys`, kept while no control
    /// record changed.
    let otherKeys: OtherNamespacesKeysCache
    /// The wall clock the records are kept by.
    let clock: WallClock
    /// Held while this process writes namespace records: steps that read every record (the limit)
    /// and write one would otherwise conflict with each other on a serializable store (PostgreSQL),
    /// and 16 testers making namespaces at once retried past the step's deadline.
    let recordWrites = AsyncLock()
    /// When the identity index last compared every namespace's control record with the worlds it
    /// indexed (wall clock): at most once per `refreshInterval`, on a miss.
    let identitiesCheckedAt = Mutex<Date>(.distantPast)

    init(defaultState: MockState, clock: WallClock = .system) {
        self.clock = clock
        worlds = NamespaceWorlds(home: defaultState)
        recordCache = NamespaceRecordCache(store: defaultState.store, locator: defaultState.directory, clock: clock)
        use = NamespaceUse(clock: clock)
        everyNamespace = EveryNamespace(base: defaultState.base, locator: defaultState.directory)
        otherKeys = OtherNamespacesKeysCache(store: defaultState.base)
        steps = NamespaceSteps(
            base: defaultState.base, locator: defaultState.directory, catalog: defaultState.catalog,
            initialScenario: defaultState.initialScenario)
    }

    /// The keys that find a namespace.
    var locator: NamespaceLocator { defaultState.directory }
    var logger: Logger { defaultState.logger }

    // MARK: - Finding a world

    /// The world of the namespace `name` (a valid name), made from the initial scenario if it does
    /// not exist yet (refused with `limitReached` when there are `limit` already).
    func state(for name: String) async throws -> MockState {
        if name == NamespaceName.default { return defaultState }
        touch(name)
        if let world = worlds.openedWorld(name), recordCache.cached(name) != nil { return world }
        try await recordCache.refreshIfStale()
        if recordCache.cached(name) == nil {
            _ = try await put(name, NamespaceOptions(), onlyIfNew: true)
        }
        return worlds.world(name)
    }

    /// The world of the namespace `name` if it exists, never made: for background work (a
    /// notification, the relay's copy) on a namespace that may have been deleted meanwhile.
    func existingState(_ name: String) async throws -> MockState? {
        if name == NamespaceName.default { return defaultState }
        if recordCache.cached(name) == nil { try await refresh() }
        guard recordCache.cached(name) != nil else { return nil }
        return worlds.world(name)
    }

    /// The world of the namespace whose codes and tokens carry `tag`, if one exists.
    func state(forTag tag: UInt32) async throws -> MockState? {
        if tag == 0 { return nil }
        var name = locator.name(ofTag: tag)
        if name == nil {
            try await recordCache.refreshIfStale()
            name = locator.name(ofTag: tag)
        }
        guard let name else { return nil }
        touch(name)
        return worlds.world(name)
    }

    /// The namespace claiming `clientId`, if any.
    func namespace(claiming clientId: String) async throws -> String? {
        try await recordCache.refreshIfStale()
        return locator.name(claiming: clientId)
    }

    /// The worlds this process has opened, the default first.
    func openedStates() -> [MockState] {
        worlds.all
    }

    /// The worlds of every namespace, the default first.
    func allStates() async throws -> [MockState] {
        try await refresh()
        return [defaultState] + recordCache.all.map { worlds.world($0.name) }
    }

    // MARK: - Records

    /// Reads every record from the store (the worlds of namespaces gone are closed).
    func refresh() async throws {
        if let names = try await recordCache.refresh() { worlds.keep(only: names) }
    }

    /// Every namespace's record, by name.
    func records() async throws -> [NamespaceRecord] {
        try await flushUse()
        try await refresh()
        return recordCache.all
    }

    /// The record of `name`, if it exists.
    func record(_ name: String) async throws -> NamespaceRecord? {
        try await records().first { $0.name == name }
    }
}
