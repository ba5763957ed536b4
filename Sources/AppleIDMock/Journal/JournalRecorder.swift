import DequeModule
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Collects journal entries without making the request wait: entries are buffered here and written
/// to the store in batches (by `JournalService`, and before every journal read). The buffer is
/// bounded; past it the oldest unwritten entries are dropped and counted.
///
/// Every `/auth/*` request passes through here on whichever event loop it came in on, so the lock
/// is held only to append or to swap the buffer: ids are numbered with an atomic counter, and
/// `drain` takes the whole buffer at once, leaving one with room for as many entries as it took
/// (under load, a lock held to copy thousands of entries, or to regrow the buffer, parked every
/// request on the other loop in the kernel).
final class JournalRecorder: Sendable {
    /// The most entries waiting to be written: a busy server writes them every 250 ms
    /// (`JournalService`), so 160,000 calls a second fit.
    static let bufferLimit = 40_000

    /// The waiting entries, and how many were dropped.
    private struct Buffer {
        /// A deque: dropping the oldest when full costs nothing per request.
        var entries: Deque<JournalEntry> = []
        var dropped = 0
    }

    private let buffer = Mutex(Buffer())
    /// One drained batch on its way to the store at a time. A flush that found the buffer empty
    /// while another's batch was still on its way would let a journal read miss what was recorded
    /// before it, and a clear between a drain and its write would see that batch written after it.
    private let writing = AsyncLock()
    /// How many ids this recorder has handed out.
    private let issued = Atomic<Int>(0)
    /// Tells this replica's entries apart from another's written in the same microsecond.
    private let replica = Array(String(UInt32.random(in: 0...UInt32.max), radix: 36).utf8)

    init() {}

    /// A new id that sorts by wall-clock time: `<microseconds, 14 hex digits or more>-<replica>-<4
    /// hex digits of a counter>`.
    func nextId(at wallTime: Date) -> String {
        let sequence = issued.wrappingAdd(1, ordering: .relaxed).newValue
        let micros = UInt64(max(0, wallTime.timeIntervalSince1970 * 1_000_000))
        return Self.id(micros: micros, replica: replica, counter: UInt16(truncatingIfNeeded: sequence))
    }

    /// Spells an id in one allocation.
    static func id(micros: UInt64, replica: [UInt8], counter: UInt16) -> String {
        let timeDigits = max(14, (64 - micros.leadingZeroBitCount + 3) / 4)
        return String(unsafeUninitializedCapacity: timeDigits + replica.count + 6) { text in
            var end = 0
            func hex(_ value: UInt64, _ count: Int) {
                for shift in stride(from: (count - 1) * 4, through: 0, by: -4) {
                    text[end] = UInt8(truncatingIfNeeded: value >> UInt64(shift)).hexDigit()
                    end += 1
                }
            }
            func byte(_ value: UInt8) {
                text[end] = value
                end += 1
            }
            hex(micros, timeDigits)
            byte(UInt8(ascii: "-"))
            replica.forEach(byte)
            byte(UInt8(ascii: "-"))
            hex(UInt64(counter), 4)
            return end
        }
    }

    /// Records what happened at `endpoint` in `namespace`, which `started` and ended now: the id, both clocks and
    /// the latency are filled in here, `describe` adds what the caller knows (method, client, …).
    /// `latencyMilliseconds`, when given, replaces the time since `started` (an attempt measured apart).
    func record(
        _ endpoint: String, in namespace: NamespaceScope, started: JournalStart, mockTime: Date,
        outcome: JournalOutcome, latencyMilliseconds: Int? = nil, _ describe: (inout JournalEntry) -> Void = { _ in }
    ) {
        var entry = JournalEntry(
            id: nextId(at: started.wallTime), at: mockTime, wallTime: started.wallTime, namespace: namespace.name,
            endpoint: endpoint, outcome: outcome,
            latencyMilliseconds: latencyMilliseconds ?? started.elapsedMilliseconds)
        describe(&entry)
        record(entry)
    }

    /// Queues `entry` for the store.
    func record(_ entry: JournalEntry) {
        buffer.withLock { buffer in
            if buffer.entries.count >= Self.bufferLimit {
                buffer.entries.removeFirst()
                buffer.dropped += 1
            }
            buffer.entries.append(entry)
        }
    }

    /// How many entries wait to be written.
    var count: Int { buffer.withLock { $0.entries.count } }

    /// Whether nothing is waiting, entries or a count of dropped ones.
    var isEmpty: Bool {
        buffer.withLock { $0.entries.isEmpty && $0.dropped == 0 }
    }

    /// Takes every waiting entry, in the order they were recorded, and how many were dropped since
    /// the last call. The buffer itself is handed over: copying thousands of entries into an array
    /// retained and released every field of each.
    func drain() -> (entries: Deque<JournalEntry>, dropped: Int) {
        buffer.withLock { buffer in
            let taken = buffer.entries
            let dropped = buffer.dropped
            // The next batch is likely as large as this one: room for it now, not by regrowing under the lock.
            buffer.entries = Deque(minimumCapacity: taken.count)
            buffer.dropped = 0
            return (taken, dropped)
        }
    }

    /// Runs `body` (a drain and its write, or a clear) while no other drained batch is on its way.
    func writingAlone<T>(_ body: () async throws -> T) async rethrows -> T {
        try await writing.withLock(body)
    }

    /// How many wait in `writingAlone` (for tests).
    var waitingToWrite: Int { writing.waiting }

    /// Puts entries back at the front after a failed write (the newest are kept within the limit).
    func restore(_ entries: some Collection<JournalEntry>) {
        buffer.withLock { buffer in
            buffer.entries.prepend(contentsOf: entries)
            if buffer.entries.count > Self.bufferLimit {
                buffer.entries.removeFirst(buffer.entries.count - Self.bufferLimit)
            }
        }
    }
}
