import DequeModule
import Foundation

/// The journaled memory store's group commit, as a state machine without I/O: which steps are
/// applied to the tables but not yet durable, which batch is being written, and what each waiting
/// step should do next.
///
/// A step applies its changes in memory under the store's lock and is numbered (its LSN); it then
/// waits, without the lock, until its number is written. The first waiter that finds no write under
/// way writes everything applied so far in one transaction (the steps that arrived meanwhile share
/// it); the others wait for that write and check again. Steps are written in the order they were
/// applied, so a step that read another's change is never durable before it. When a write fails,
/// every step not yet durable is undone in the tables, newest first, and fails: nothing a caller
/// was told succeeded is lost, and nothing that failed stays visible.
struct CommitLog: ~Copyable {
    /// A step applied to the tables and not yet durable: its changes, and the entries they replaced.
    struct Pending: Sendable {
        var lsn: Int64
        var changes: StoreChanges
        /// Writes that put back what the step replaced (`nil`: the entry did not exist).
        var undo: StoreChanges
    }

    /// What a step waiting for `lsn` does next.
    enum Turn {
        /// The step is durable.
        case durable
        /// The step was undone: a write failed (the cause).
        case lost(String)
        /// Write these steps (in order) and report with `written` or `failed`.
        case write([Pending])
        /// Another step's write is under way: wait for it and ask again.
        case wait
    }

    /// The newest step applied to the tables (or failed write undone in them).
    private(set) var applied: Int64 = 0
    /// Every step up to this one is settled: durable, or undone by a failed write.
    private(set) var settled: Int64 = 0
    /// How many failed writes undid steps: a step that read the tables before one cannot commit.
    private(set) var generation = 0
    private var pending = Deque<Pending>()
    /// The batch being written (kept to undo it if the write fails).
    private var writing: [Pending]?
    /// The steps undone by the newest failed writes, and why (for their waiters, which ask at once).
    private var lost: [(steps: ClosedRange<Int64>, cause: String)] = []
    /// How many failed writes `lost` keeps: a long outage under load fails a write per batch.
    static let keptFailures = 1000
    /// The last step of the failures no longer kept: a step up to it not found in `lost` is taken
    /// as lost (it cannot be told from a durable one, so it is not said to be durable).
    private var forgottenThrough: Int64 = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Numbers a step whose changes were just applied, with what undoes them.
    mutating func append(_ changes: StoreChanges, undo: StoreChanges) -> Int64 {
        applied += 1
        pending.append(Pending(lsn: applied, changes: changes, undo: undo))
        return applied
    }

    /// Numbers a step written before it was applied (durable at once).
    mutating func appendDurable() {
        precondition(pending.isEmpty && writing == nil && settled == applied, "a step was written out of order")
        applied += 1
        settled = applied
    }

    /// What the step numbered `lsn` (or a reader that saw the tables as of `lsn`) does next.
    mutating func turn(for lsn: Int64) -> Turn {
        if lsn <= settled {
            // Newest failure first, stopping at the first one wholly before `lsn` (ranges ascend):
            // a step after the last failure does not scan every earlier one.
            for failure in lost.reversed() {
                if failure.steps.upperBound < lsn { break }
                if failure.steps.contains(lsn) { return .lost(failure.cause) }
            }
            // (0: a reader that saw the tables before any step.)
            if lsn > 0, lsn <= forgottenThrough, lost.first.map({ lsn < $0.steps.lowerBound }) ?? true {
                return .lost("writing the state failed (one of more than \(Self.keptFailures) failed writes)")
            }
            return .durable
        }
        guard writing == nil else { return .wait }
        let batch = Array(pending)
        pending.removeAll()
        writing = batch
        return .write(batch)
    }

    /// Parks a step waiting for `lsn` until the write under way ends; `false` (not parked) when
    /// there is nothing to wait for any more.
    mutating func park(_ waiter: CheckedContinuation<Void, Never>, for lsn: Int64) -> Bool {
        guard lsn > settled, writing != nil else { return false }
        waiters.append(waiter)
        return true
    }

    /// The parked steps, to wake once a write ended (each asks for its turn again).
    mutating func takeWaiters() -> [CheckedContinuation<Void, Never>] {
        defer { waiters.removeAll() }
        return waiters
    }

    /// The batch handed out by `turn` is durable.
    mutating func written() {
        guard let batch = writing else { return }
        writing = nil
        if let last = batch.last { settled = max(settled, last.lsn) }
    }

    /// The batch handed out by `turn` failed: every step not yet durable is lost. Returns the undo
    /// writes to apply to the tables, newest step first.
    mutating func failed(cause: String) -> [StoreChanges] {
        let undone = (writing ?? []) + pending
        writing = nil
        pending.removeAll()
        guard let first = undone.first, let last = undone.last else { return [] }
        lost.append((first.lsn...last.lsn, cause))
        if lost.count > Self.keptFailures { forgottenThrough = lost.removeFirst().steps.upperBound }
        // The tables, once undone, are what is durable: a number of their own, so that a step that
        // reads them from now on is not taken for one that saw the undone steps.
        applied = last.lsn + 1
        settled = applied
        generation += 1
        return undone.reversed().map(\.undo)
    }
}
