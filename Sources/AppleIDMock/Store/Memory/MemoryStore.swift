import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writes a memory store's changes somewhere durable before they count (the SQLite journal).
protocol StoreJournal: Sendable {
    /// Writes `changes` in one transaction; throws (and nothing counts) if it cannot.
    func write(_ changes: StoreChanges) async throws
}

/// The state in this process's memory: the default store, and the working copy of the SQLite store,
/// whose journal makes every step durable before it counts. Steps run one at a time.
final class MemoryStore: StateStore {
    let tables = Mutex(MemoryTables())
    /// `MemoryTables.controlRevision` as of the last change, stored under the tables' lock and read
    /// without it: every request asks whether the control record changed, and on a busy store the
    /// lock is often held (a journal batch, a sweep step), which parked that request in the kernel.
    private let publishedRevision = Atomic<Int64>(0)
    private let lock = AsyncLock()
    private let journal: (any StoreJournal)?
    let description: String
    /// Told of every committed step (this process is the store's only writer).
    let watch = StoreWatch()

    /// An empty store, or one loaded from `entries` with `journal` recording every change.
    init(description: String = "memory", journal: (any StoreJournal)? = nil, entries: [(EntryRef, MemoryEntry)] = []) {
        self.description = description
        self.journal = journal
        tables.withLock { tables in
            for (ref, entry) in entries { tables.write(ref, entry) }
            publishedRevision.store(tables.controlRevision, ordering: .releasing)
        }
    }

    func transaction<Result: Sendable>(_ body: @escaping @Sendable (any StateTransaction) async throws -> Result)
        async throws -> Result
    {
        try await serialized {
            let transaction = MemoryTransaction(store: self)
            let result = try await body(transaction)
            try await commit(transaction.changes)
            return result
        }
    }

    /// Runs `body` holding the store's lock, one step at a time. Without a journal the holder never
    /// waits, so it runs where it is called (on a request's event loop). With one it waits on the
    /// journal's round trips while holding the lock, so it runs on the cooperative pool: resumed on
    /// an event loop, each round trip would queue behind that loop's requests (their signatures)
    /// while every other request waits for the lock.
    private func serialized<T>(_ body: () async throws -> T) async throws -> T {
        guard journal != nil else { return try await lock.withLock(body) }
        return try await withTaskExecutorPreference(globalConcurrentExecutor) {
            try await lock.withLock(body)
        }
    }

    /// Makes `changes` durable (if journaled), then visible.
    private func commit(_ changes: StoreChanges) async throws {
        guard !changes.isEmpty else { return }
        try await journal?.write(changes)
        tables.withLock { tables in
            tables.apply(changes)
            publishedRevision.store(tables.controlRevision, ordering: .releasing)
        }
        watch.committed(changes)
    }

    func control(in space: String, ifChangedFrom known: Int64?) async throws -> (revision: Int64, value: ControlState?)
    {
        // A change made before this call began was published before its step released the lock.
        // One revision counts every namespace's control record: a namespace asked again after
        // another's change reads its record again (and keeps its world when the record is the same).
        if let known, publishedRevision.load(ordering: .acquiring) == known { return (known, nil) }
        return tables.withLock { tables in
            let revision = tables.controlRevision
            guard revision != known else { return (revision, nil) }
            let value = tables.entry(EntryRef(space: space, key: ControlState.key))?.value
            return (revision, value as? ControlState)
        }
    }

    func entryCounts(_ spaces: [String]) async throws -> [String: Int] {
        tables.withLock { tables in
            Dictionary(uniqueKeysWithValues: spaces.map { ($0, tables.count(in: $0)) })
        }
    }

    func claimDue<Value>(
        _ space: StoreSpace<Value>, now: Date, leaseUntil: Date, limit: Int,
        mark: @escaping @Sendable (inout Value) -> Void
    ) async throws -> [(space: String, key: String, value: Value)] {
        try await serialized {
            let due = tables.withLock { tables in
                var due: [(ref: EntryRef, at: Date)] = []
                for (stored, entries) in tables.due where Spaces.baseName(of: stored) == space.name {
                    for (key, at) in entries where at <= now { due.append((EntryRef(space: stored, key: key), at)) }
                }
                return due.sorted { $0.at < $1.at }.prefix(limit)
                    .compactMap { ref, _ in tables.entry(ref).map { (ref, $0) } }
            }
            guard !due.isEmpty else { return [] }
            var changes = StoreChanges()
            var claimed: [(space: String, key: String, value: Value)] = []
            for (ref, var entry) in due {
                guard var value = entry.value as? Value else { continue }
                mark(&value)
                entry.value = value
                entry.index.dueAt = leaseUntil
                changes.writes[ref] = entry
                claimed.append((ref.space, ref.key, value))
            }
            try await commit(changes)
            return claimed
        }
    }

    /// How many entries one sweep step deletes at most: a burst of expiries (a clock jump, a load
    /// test's codes) is freed in steps that requests can run between, and without building one
    /// change set as large as the burst.
    static let sweepBatch = 4096

    func sweep(expiredBefore now: Date) async throws -> Int {
        var swept = 0
        while true {
            let count = try await sweepBatch(expiredBefore: now)
            swept += count
            if count < Self.sweepBatch { return swept }
        }
    }

    private func sweepBatch(expiredBefore now: Date) async throws -> Int {
        try await serialized {
            // Found first, then removed through the journal, so a failed write removes nothing.
            let expired = tables.withLock { tables in
                tables.expiredRefs(before: now, limit: Self.sweepBatch)
            }
            guard !expired.isEmpty else { return 0 }
            var changes = StoreChanges()
            for ref in expired { changes.writes[ref] = .some(nil) }
            do {
                try await commit(changes)
            } catch {
                tables.withLock { $0.restoreExpiry(expired) }
                throw error
            }
            return expired.count
        }
    }
}
