import DequeModule
import Foundation
import Synchronization

/// Collects journal entries without making the request wait: entries are buffered here and written
/// to the store in batches (by `JournalService`, and before every journal read). The buffer is
/// bounded; past it the oldest unwritten entries are dropped and counted.
final class JournalRecorder: Sendable {
    /// The most entries waiting to be written.
    static let bufferLimit = 10_000

    /// The waiting entries, and how many were dropped.
    private struct Buffer {
        /// A deque: dropping the oldest when full costs nothing per request.
        var entries: Deque<JournalEntry> = []
        var dropped = 0
        var sequence = 0
    }

    private let buffer = Mutex(Buffer())
    /// Tells this replica's entries apart from another's written in the same microsecond.
    private let replica = String(UInt32.random(in: 0...UInt32.max), radix: 36)

    init() {}

    /// A new id that sorts by wall-clock time.
    func nextId(at wallTime: Date) -> String {
        let sequence = buffer.withLock { buffer in
            buffer.sequence &+= 1
            return buffer.sequence
        }
        let micros = UInt64(max(0, wallTime.timeIntervalSince1970 * 1_000_000))
        let time = String(micros, radix: 16)
        let counter = String(sequence % 0x10000, radix: 16)
        return String(repeating: "0", count: max(0, 14 - time.count)) + time + "-" + replica + "-"
            + String(repeating: "0", count: 4 - counter.count) + counter
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

    /// Whether nothing is waiting, entries or a count of dropped ones.
    var isEmpty: Bool {
        buffer.withLock { $0.entries.isEmpty && $0.dropped == 0 }
    }

    /// Takes every waiting entry, and how many were dropped since the last call.
    func drain() -> (entries: [JournalEntry], dropped: Int) {
        buffer.withLock { buffer in
            defer {
                buffer.entries = []
                buffer.dropped = 0
            }
            return (Array(buffer.entries), buffer.dropped)
        }
    }

    /// Puts entries back at the front after a failed write (the newest are kept within the limit).
    func restore(_ entries: [JournalEntry]) {
        buffer.withLock { buffer in
            buffer.entries.prepend(contentsOf: entries)
            if buffer.entries.count > Self.bufferLimit {
                buffer.entries.removeFirst(buffer.entries.count - Self.bufferLimit)
            }
        }
    }
}
