import NIOCore
import NIOPosix

/// The flushes one event loop holds back (`FlushCoalescingHandler`), and the one pass queued on the
/// loop that releases them.
///
/// Used on its loop only. Each loop thread keeps its own, found through a thread-specific
/// variable when a connection's pipeline is set up, so requests share no lock.
final class LoopFlushQueue {
    private let loop: any EventLoop
    private var held: [(handler: FlushCoalescingHandler, context: ChannelHandlerContext)] = []
    private var passQueued = false

    private init(loop: any EventLoop) {
        self.loop = loop
    }

    /// Holds `handler`'s flush until the work queued on the loop now has run.
    func hold(_ handler: FlushCoalescingHandler, _ context: ChannelHandlerContext) {
        held.append((handler, context))
        guard !passQueued else { return }
        passQueued = true
        loop.assumeIsolated().execute { self.releaseAll() }
    }

    /// Flushes every held connection; one held while this runs is flushed in the same pass.
    private func releaseAll() {
        var index = 0
        while index < held.count {
            let (handler, context) = held[index]
            handler.release(context)
            index += 1
        }
        held.removeAll(keepingCapacity: true)
        passQueued = false
    }

    /// The queue of `loop`, made on first use; call on `loop`.
    static func current(on loop: any EventLoop) -> LoopFlushQueue {
        if let slot = slots.currentValue, slot.loop === loop { return slot.queue.value }
        let queue = LoopFlushQueue(loop: loop)
        slots.currentValue = LoopFlushSlot(loop: loop, queue: NIOLoopBound(queue, eventLoop: loop))
        return queue
    }

    /// One per thread: a loop thread runs one loop (test loops sharing a thread replace it, and a
    /// pass already queued keeps its own queue).
    private static let slots = ThreadSpecificVariable<LoopFlushSlot>()
}

/// A thread's flush queue and the loop it belongs to.
private final class LoopFlushSlot: Sendable {
    let loop: any EventLoop
    let queue: NIOLoopBound<LoopFlushQueue>

    init(loop: any EventLoop, queue: NIOLoopBound<LoopFlushQueue>) {
        self.loop = loop
        self.queue = queue
    }
}
