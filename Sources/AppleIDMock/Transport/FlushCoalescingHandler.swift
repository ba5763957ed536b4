import NIOCore

/// Holds a connection's flush back until its event loop has run the work already queued on it,
/// then flushes every connection of that loop that waited, in one pass (as Netty's
/// `FlushConsolidationHandler` does for a read burst).
///
/// Under load a loop has several requests queued, each about a signature long. Flushed one by one,
/// every answer wakes the client on its own, and a client on the same cores preempts the next
/// signature to read it; flushed together, one wake-up reads them all. Nothing waits longer than
/// the work that was queued ahead when it was written, and an idle loop flushes as soon as the
/// current job ends. Closing or removing the handler flushes first, so nothing written is lost.
final class FlushCoalescingHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = NIOAny

    private var queue: LoopFlushQueue?
    private var waiting = false

    func handlerAdded(context: ChannelHandlerContext) {
        queue = LoopFlushQueue.current(on: context.eventLoop)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        queue = nil
        waiting = false
    }

    func flush(context: ChannelHandlerContext) {
        guard let queue else { return context.flush() }
        guard !waiting else { return }
        waiting = true
        queue.hold(self, context)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        release(context)
        context.close(mode: mode, promise: promise)
    }

    func removeHandler(context: ChannelHandlerContext, removalToken: ChannelHandlerContext.RemovalToken) {
        release(context)
        context.leavePipeline(removalToken: removalToken)
    }

    /// Passes the held flush on, if one is held.
    func release(_ context: ChannelHandlerContext) {
        guard waiting else { return }
        waiting = false
        context.flush()
    }
}
