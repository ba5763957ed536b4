import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The namespace records (`Spaces.namespaces`) as last read from the store, read again when a
/// second old (another replica may have made or deleted namespaces), and kept in step with the
/// changes made here. Each read fills the locator's tags and claims.
final class NamespaceRecordCache: Sendable {
    /// The records as last read.
    private struct Known {
        var records: [String: NamespaceRecord] = [:]
        /// When the records were read (wall clock).
        var readAt: Date = .distantPast
        /// Counts the namespaces made or deleted here, before their step and with what it changes
        /// here: a read of the records that overlapped one is not remembered (it would forget what
        /// that step did).
        var changes = 0
    }

    /// How long a read stays fresh for another replica's namespaces and claims.
    static let refreshInterval: TimeInterval = 1

    private let known = Mutex(Known())
    /// The store of the default namespace, which lists every namespace.
    private let store: any StateStore
    private let locator: NamespaceLocator
    private let clock: WallClock

    init(store: any StateStore, locator: NamespaceLocator, clock: WallClock) {
        self.store = store
        self.locator = locator
        self.clock = clock
    }

    /// The record of `name` as last read or changed here.
    func cached(_ name: String) -> NamespaceRecord? {
        known.withLock { $0.records[name] }
    }

    /// Every record as last read or changed here, by name.
    var all: [NamespaceRecord] {
        known.withLock { $0.records.values.sorted { $0.name < $1.name } }
    }

    /// Reads the records again when the last read is older than `refreshInterval`.
    func refreshIfStale() async throws {
        let readAt = known.withLock { $0.readAt }
        if clock.now().timeIntervalSince(readAt) >= Self.refreshInterval { try await refresh() }
    }

    /// Reads every record from the store; returns their names (`nil`: the read overlapped a change
    /// here and was dropped).
    @discardableResult
    func refresh() async throws -> Set<String>? {
        let changes = known.withLock { $0.changes }
        let records = try await store.transaction { try await $0.list(Spaces.namespaces) }
        return remember(records.map(\.value), at: clock.now(), changes: changes)
    }

    /// Remembers `records`, read when `changes` namespaces had been made or deleted here; a read
    /// that overlapped a change is dropped (the next one is not stale yet: it reads again).
    private func remember(_ records: [NamespaceRecord], at date: Date, changes: Int) -> Set<String>? {
        let next = Known(
            records: Dictionary(records.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first }), readAt: date,
            changes: changes)
        let locator = locator
        return known.withLock { known in
            guard known.changes == changes else { return nil }
            known = next
            locator.replace(with: records)
            return Set(next.records.keys)
        }
    }

    /// Notes that a step making, changing or deleting a namespace begins (before it runs).
    func beginChange() {
        known.withLock { $0.changes += 1 }
    }

    /// Notes that `record` was written by a step here.
    func didPut(_ record: NamespaceRecord) {
        let locator = locator
        known.withLock { known in
            known.changes += 1
            locator.insert(record, replacing: known.records[record.name])
            known.records[record.name] = record
        }
    }

    /// Notes that a step here found `name` gone from the store (it deleted it, or found none).
    func didDelete(_ name: String) {
        let locator = locator
        known.withLock { known in
            known.changes += 1
            locator.remove(name, record: known.records.removeValue(forKey: name))
        }
    }
}
