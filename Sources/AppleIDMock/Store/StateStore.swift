#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where the mock's mutable state lives: in memory, in one SQLite file, or in PostgreSQL shared by
/// replicas. What every store does: it keeps entries and runs atomic steps on them, and answers the
/// few reads and housekeeping calls made outside a step (the control record, due work, expiry,
/// counts, its description), with the `watch` that wakes reads waiting for its spaces to change;
/// the rules live in `Domain/`. What only a store shared with other processes does is
/// `SharedStore`; what only a store this process writes alone does is `SoleWriterStore`.
protocol StateStore: Sendable {
    /// Runs `body` as one atomic step and returns its result (see `StateTransaction`).
    func transaction<Result: Sendable>(_ body: @escaping @Sendable (any StateTransaction) async throws -> Result)
        async throws
        -> Result

    /// The control record in `space` (the default namespace's, or a namespace's copy) and its
    /// revision; `value` is `nil` when the revision is still `known`, so a replica reads it on every
    /// request at the cost of one small query. A record that is not there throws `ControlMissing`.
    func control(in space: String, ifChangedFrom known: Int64?) async throws -> (revision: Int64, value: ControlState?)

    /// Takes up to `limit` entries of `space`, and of every namespace's copy of it, that are due at
    /// `now` (wall clock) and files them as due again at `leaseUntil`, so another replica takes them
    /// over if this one dies; each is taken by one caller only. `mark` changes each value as it is
    /// taken. Each comes with the stored name of its space (which names its namespace).
    func claimDue<Value>(
        _ space: StoreSpace<Value>, now: Date, leaseUntil: Date, limit: Int,
        mark: @escaping @Sendable (inout Value) -> Void
    ) async throws -> [(space: String, key: String, value: Value)]

    /// Deletes entries whose `expiresAt` is before `now` (the mock's clock); returns how many.
    func sweep(expiredBefore now: Date) async throws -> Int

    /// What the store is, for logs and the start-up line (a PostgreSQL password is masked).
    var description: String { get }

    /// Wakes reads waiting for the journal, the outbox or the mailbox to change. A store this
    /// process owns alone tells it of every committed step; a `SharedStore` is read for changes.
    var watch: StoreWatch { get }

    /// How many entries each of the stored spaces `spaces` holds (for `/metrics` and the namespace
    /// views), counted without reading them.
    func entryCounts(_ spaces: [String]) async throws -> [String: Int]
}

extension StateStore {
    /// Runs `step`, which deletes up to `batch` expired entries and says how many, until one deletes
    /// fewer; returns how many in all. Other steps run between two.
    func sweepInSteps(of batch: Int, _ step: () async throws -> Int) async throws -> Int {
        var swept = 0
        while true {
            let count = try await step()
            swept += count
            if count < batch { return swept }
        }
    }

    /// The default namespace's control record and its revision (see `control(in:ifChangedFrom:)`).
    func control(ifChangedFrom known: Int64?) async throws -> (revision: Int64, value: ControlState?) {
        try await control(in: Spaces.control.name, ifChangedFrom: known)
    }
}
