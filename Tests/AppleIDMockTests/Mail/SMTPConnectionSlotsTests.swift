import NIOCore
import NIOEmbedded
import Testing

@testable import AppleIDMock

/// The SMTP listener's slots on values: free slots are taken, a full listener gives the slot of
/// the connection longest without progress to a new client, and never one that progressed lately.
@Suite("SMTP connection slots")
struct SMTPConnectionSlotsTests {
    @Test("full: the connection longest without progress (past the grace) gives its slot; progress protects")
    func reclaim() throws {
        let slots = SMTPConnectionSlots(capacity: 2, reclaimAfter: .seconds(1))
        let start = ContinuousClock.now
        let first = EmbeddedChannel()
        let second = EmbeddedChannel()
        guard case .admitted(let one) = slots.admit(first, now: start),
            case .admitted(let two) = slots.admit(second, now: start)
        else {
            Issue.record("free slots were not taken")
            return
        }
        // Within the grace: nobody is pushed out.
        guard case .full = slots.admit(EmbeddedChannel(), now: start + .milliseconds(500)) else {
            Issue.record("a slot was reclaimed within the grace")
            return
        }
        // The first progresses; the second is the one without progress the longest.
        slots.progressed(one, now: start + .seconds(2))
        guard case .admittedReclaiming(let three, let victim) = slots.admit(EmbeddedChannel(), now: start + .seconds(2))
        else {
            Issue.record("no slot was reclaimed")
            return
        }
        #expect(victim === second)
        #expect(slots.taken == 2)
        slots.release(two)  // already reclaimed: nothing happens
        #expect(slots.taken == 2)
        slots.release(three)
        slots.release(one)
        #expect(slots.taken == 0)
    }
}
