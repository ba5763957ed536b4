import NIOCore
import Synchronization

/// The SMTP listener's connection slots, shared fairly: each connection notes when it last moved
/// a transaction on, and when every slot is taken a new client gets the slot of the connection
/// that has gone longest without progress (if that is at least `reclaimAfter`), which is told
/// `421` and closed. So idle or NOOP-looping clients cannot lock a shared relay.
final class SMTPConnectionSlots: Sendable {
    /// What `admit` decided.
    enum Admission: Sendable {
        /// A free slot was taken.
        case admitted(Int)
        /// The slot of this connection, without progress the longest, was taken: close it.
        case admittedReclaiming(Int, victim: any Channel)
        /// Every slot is busy with a connection that progressed lately.
        case full
    }

    /// One taken slot.
    private struct Slot: Sendable {
        var channel: any Channel
        var lastProgress: ContinuousClock.Instant
    }

    /// Slots in all.
    let capacity: Int
    /// How long a connection must have gone without progress before its slot can be reclaimed.
    let reclaimAfter: Duration
    private let state = Mutex<(next: Int, slots: [Int: Slot])>((0, [:]))

    init(capacity: Int, reclaimAfter: Duration) {
        self.capacity = max(1, capacity)
        self.reclaimAfter = reclaimAfter
    }

    /// Gives `channel` a slot, reclaiming one if every slot is taken.
    func admit(_ channel: any Channel, now: ContinuousClock.Instant = .now) -> Admission {
        state.withLock { state in
            let id = state.next
            state.next += 1
            if state.slots.count < capacity {
                state.slots[id] = Slot(channel: channel, lastProgress: now)
                return .admitted(id)
            }
            guard let (oldest, slot) = state.slots.min(by: { $0.value.lastProgress < $1.value.lastProgress }),
                now - slot.lastProgress >= reclaimAfter
            else { return .full }
            state.slots[oldest] = nil
            state.slots[id] = Slot(channel: channel, lastProgress: now)
            return .admittedReclaiming(id, victim: slot.channel)
        }
    }

    /// Notes that connection `id` moved its transaction on.
    func progressed(_ id: Int, now: ContinuousClock.Instant = .now) {
        state.withLock { $0.slots[id]?.lastProgress = now }
    }

    /// Frees the slot of connection `id` (nothing if it was reclaimed).
    func release(_ id: Int) {
        _ = state.withLock { $0.slots.removeValue(forKey: id) }
    }

    /// Slots taken now.
    var taken: Int { state.withLock { $0.slots.count } }
}
