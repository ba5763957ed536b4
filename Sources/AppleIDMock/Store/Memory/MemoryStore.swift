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

    /// `changes` made ready to write (the SQLite journal encodes each value here), called by the
    /// step itself: the work is done by each step, on any core, rather than by the one writing a
    /// batch, and a value that cannot be written fails its own step only.
    func prepare(_ changes: StoreChanges) throws -> StoreChanges

    /// Where a shared write's writer waits for it (`nil`: the cooperative pool). The SQLite journal
    /// names the event loop its connection answers on: the writer's wait then ends on that loop's
    /// thread, without a hop to the pool and back for every write.
    var writeExecutor: (any TaskExecutor)? { get }
}

extension StoreJournal {
    func prepare(_ changes: StoreChanges) throws -> StoreChanges { changes }
    var writeExecutor: (any TaskExecutor)? { nil }
}

/// The state in this process's memory: the default store, and the working copy of the SQLite store,
/// whose journal makes every step durable before it counts. Steps run one at a time; with a journal,
/// steps that arrive while a write is under way are written together (`CommitLog`).
final class MemoryStore: SoleWriterStore {
    let tables = Mutex(MemoryTables())
    /// `MemoryTables.controlRevision` as of the last change, stored under the tables' lock and read
    /// without it: every request asks whether the control record changed, and on a busy store the
    /// lock is often held (a journal batch, a sweep step), which parked that request in the kernel.
    private let publishedRevision = Atomic<Int64>(0)
    private let lock = AsyncLock()
    /// With a journal: the steps applied but not yet durable (group commit, `CommitLog`).
    private let log = Mutex(CommitLog())
    private let journal: (any StoreJournal)?
    let description: String
    /// Told of every committed step (this process is the store's only writer).
    let watch = StoreWatch()

    /// An empty store, or one loaded from `entries` with `journal` recording every change; new
    /// entries are numbered after `lastSeq` (the journal's highest number) and after every entry's.
    init(
        description: String = "memory", journal: (any StoreJournal)? = nil, entries: [(EntryRef, MemoryEntry)] = [],
        lastSeq: Int64 = 0
    ) {
        self.description = description
        self.journal = journal
        tables.withLock { tables in
            tables.numberAfter(lastSeq)
            for (ref, entry) in entries { tables.write(ref, entry) }
            publishedRevision.store(tables.controlRevision, ordering: .releasing)
        }
    }

    func transaction<Result: Sendable>(_ body: @escaping @Sendable (any StateTransaction) async throws -> Result)
        async throws -> Result
    {
        guard let journal else {
            return try await lock.withLock {
                let transaction = MemoryTransaction(store: self)
                let result = try await body(transaction)
                publish(transaction.changes)
                return result
            }
        }
        let (result, lsn, changes) = try await lock.withLock { () -> (Result, Int64, StoreChanges?) in
            let seen = log.withLock { (applied: $0.applied, generation: $0.generation) }
            let transaction = MemoryTransaction(store: self)
            let result = try await body(transaction)
            let changes = transaction.changes
            // A step that only read waits below for what it saw to be durable.
            guard !changes.isEmpty else { return (result, seen.applied, nil) }
            guard Self.sharesCommits(changes) else {
                try await writeThenApply(changes, journal: journal, seen: seen.applied)
                return (result, seen.applied, nil)
            }
            let prepared = try journal.prepare(changes)
            let lsn = try tables.withLock { tables in
                // A failed write undid what this step read: its changes would stand on nothing.
                guard log.withLock({ $0.generation }) == seen.generation else {
                    throw StoreUnavailable(
                        cause: "writing the state file failed while this step ran; it changed nothing")
                }
                var undo = StoreChanges()
                for ref in changes.writes.keys { undo.writes[ref] = .some(tables.entry(ref)) }
                tables.apply(changes)
                return log.withLock { $0.append(prepared, undo: undo) }
            }
            return (result, lsn, changes)
        }
        try await awaitDurable(lsn, journal: journal)
        if let changes { watch.committed(changes) }
        return result
    }

    /// Whether a step's changes can be applied before they are durable and written with others'
    /// (group commit). A step that empties spaces (a reset, a scenario switch) or writes a control
    /// record is written first and applied after, as before: the control record is read outside
    /// steps (`control(in:ifChangedFrom:)`), and undoing an emptied space would mean keeping it.
    private static func sharesCommits(_ changes: StoreChanges) -> Bool {
        changes.cleared.isEmpty
            && !changes.writes.keys.contains { StoredSpaceName.spaceName(in: $0.space) == Spaces.control.name }
    }

    /// Writes `changes` to the journal and then applies them, holding the store's lock: first
    /// waits until every step applied before (all this step saw, `seen`) is durable.
    private func writeThenApply(_ changes: StoreChanges, journal: any StoreJournal, seen: Int64) async throws {
        try await awaitDurable(seen, journal: journal)
        // Everything before is durable: the tables hold what the file holds.
        let written = tables.withLock { tables in Self.retiring(changes) { tables.entry($0) } }
        // Off the event loop: the lock is held across the journal's round trips.
        try await withTaskExecutorPreference(globalConcurrentExecutor) { try await journal.write(written) }
        tables.withLock { tables in
            tables.apply(changes)
            log.withLock { $0.appendDurable() }
            publishedRevision.store(tables.controlRevision, ordering: .releasing)
        }
        watch.committed(changes)
    }

    /// Returns once the step numbered `lsn` is durable; throws if a failed write undid it. The
    /// first waiter that finds no write under way writes every applied step in one transaction.
    private func awaitDurable(_ lsn: Int64, journal: any StoreJournal) async throws {
        while true {
            switch log.withLock({ $0.turn(for: lsn) }) {
            case .durable:
                return
            case .lost(let cause):
                throw StoreUnavailable(cause: cause)
            case .wait:
                await withCheckedContinuation { waiter in
                    if !log.withLock({ $0.park(waiter, for: lsn) }) { waiter.resume() }
                }
            case .write(let batch):
                do {
                    // Off the request's event loop: every step of the batch waits for this write.
                    try await withTaskExecutorPreference(journal.writeExecutor ?? globalConcurrentExecutor) {
                        try await journal.write(Self.merged(batch))
                    }
                    log.withLock { $0.written() }
                } catch {
                    let cause = (error as? StoreUnavailable)?.cause ?? "writing the state failed: \(error)"
                    tables.withLock { tables in
                        for undo in log.withLock({ $0.failed(cause: cause) }) { tables.apply(undo) }
                    }
                }
                for waiter in log.withLock({ $0.takeWaiters() }) { waiter.resume() }
            }
        }
    }

    /// A batch's changes as one set: later steps' writes replace earlier ones' (no step of a
    /// shared commit empties a space), with the rows they retire from the file, found in what each
    /// entry was before the batch (the undo of the first step that wrote it).
    private static func merged(_ batch: [CommitLog.Pending]) -> StoreChanges {
        guard batch.count > 1 else {
            guard let step = batch.first else { return StoreChanges() }
            return retiring(step.changes) { step.undo.writes[$0] ?? nil }
        }
        var merged = StoreChanges()
        var before: [EntryRef: MemoryEntry?] = [:]
        for step in batch {
            for (ref, entry) in step.changes.writes {
                merged.writes[ref] = entry
                if before.index(forKey: ref) == nil { before[ref] = step.undo.writes[ref] ?? nil }
            }
        }
        return retiring(merged) { before[$0] ?? nil }
    }

    /// `changes` with the insertion numbers of the entries they delete or renumber, each as
    /// `before` gives it (what the file holds): the journal's file finds its rows by number.
    static func retiring(_ changes: StoreChanges, before: (EntryRef) -> MemoryEntry?) -> StoreChanges {
        var retiring = changes
        for (ref, entry) in changes.writes {
            guard let old = before(ref), entry?.seq != old.seq else { continue }
            retiring.retired.append(old.seq)
        }
        return retiring
    }

    /// Makes `changes` visible in a store without a journal.
    private func publish(_ changes: StoreChanges) {
        guard !changes.isEmpty else { return }
        tables.withLock { tables in
            tables.apply(changes)
            publishedRevision.store(tables.controlRevision, ordering: .releasing)
        }
        watch.committed(changes)
    }

    /// Runs `body` holding the store's lock, one step at a time (housekeeping: `claimDue`, `sweep`).
    /// With a journal, the holder waits for it, so it runs on the cooperative pool: resumed on an
    /// event loop, each round trip would queue behind that loop's requests (their signatures) while
    /// every other request waits for the lock.
    private func serialized<T>(_ body: () async throws -> T) async throws -> T {
        guard journal != nil else { return try await lock.withLock(body) }
        return try await withTaskExecutorPreference(globalConcurrentExecutor) {
            try await lock.withLock(body)
        }
    }

    /// The newest step applied, to pass to `commit`: taken before reading the tables, so that a
    /// failed write that undoes what was read fails the commit.
    private var seen: Int64 { log.withLock { $0.applied } }

    /// Makes `changes` durable (if journaled: after every step applied before, up to `seen`, all
    /// the tables showed when `changes` were worked out), then visible. Called holding the store's lock.
    private func commit(_ changes: StoreChanges, seen: Int64) async throws {
        guard !changes.isEmpty else { return }
        guard let journal else { return publish(changes) }
        try await writeThenApply(changes, journal: journal, seen: seen)
    }

    func control(in space: String, ifChangedFrom known: Int64?) async throws -> (revision: Int64, value: ControlState?)
    {
        // A change made before this call began was published before its step released the lock.
        // One revision counts every namespace's control record: a namespace asked again after
        // another's change reads its record again (and keeps its world when the record is the same).
        if let known, publishedRevision.load(ordering: .acquiring) == known { return (known, nil) }
        return try tables.withLock { tables in
            let revision = tables.controlRevision
            guard revision != known else { return (revision, nil) }
            guard let value = tables.entry(EntryRef(space: space, key: ControlState.key))?.value as? ControlState else {
                throw ControlMissing()
            }
            return (revision, value)
        }
    }

    /// `MemoryTables.controlRevision` as last published: this process is the store's only writer.
    var controlGeneration: Int64 { publishedRevision.load(ordering: .acquiring) }

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
            let seen = self.seen
            let due = tables.withLock { tables in
                var due: [(ref: EntryRef, at: Date)] = []
                for (stored, entries) in tables.due where StoredSpaceName.spaceName(in: stored) == space.name {
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
            try await commit(changes, seen: seen)
            return claimed
        }
    }

    /// How many entries one sweep step deletes at most: a burst of expiries (a clock jump, a load
    /// test's codes) is freed in steps that requests can run between, and without building one
    /// change set as large as the burst.
    static let sweepBatch = 4096

    func sweep(expiredBefore now: Date) async throws -> Int {
        try await sweepInSteps(of: Self.sweepBatch) { try await sweepBatch(expiredBefore: now) }
    }

    private func sweepBatch(expiredBefore now: Date) async throws -> Int {
        try await serialized {
            // Found first, then removed through the journal, so a failed write removes nothing.
            let seen = self.seen
            let expired = tables.withLock { tables in
                tables.expiredRefs(before: now, limit: Self.sweepBatch)
            }
            guard !expired.isEmpty else { return 0 }
            var changes = StoreChanges()
            for ref in expired { changes.writes[ref] = .some(nil) }
            do {
                try await commit(changes, seen: seen)
            } catch {
                tables.withLock { $0.restoreExpiry(expired) }
                throw error
            }
            return expired.count
        }
    }
}
