import NIOCore
import NIOEmbedded
import Testing

@testable import AppleIDMock

/// Flushes held back while the event loop has work queued, released together, and never lost on
/// close or removal. Synchronous tests: a loop's flush queue belongs to the thread that runs it.
@Suite("Flush coalescing")
struct FlushCoalescingTests {
    static func buffer(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    @Test("a flush waits for the work queued before it, then connections of the loop go out together")
    func heldUntilQueuedWorkRan() throws {
        let loop = EmbeddedEventLoop()
        let first = EmbeddedChannel(handler: FlushCoalescingHandler(), loop: loop)
        let second = EmbeddedChannel(handler: FlushCoalescingHandler(), loop: loop)
        var sentWhenQueuedWorkRan: ByteBuffer?
        var queuedWorkRan = false
        loop.execute {
            queuedWorkRan = true
            sentWhenQueuedWorkRan = try? first.readOutbound(as: ByteBuffer.self)
        }
        first.writeAndFlush(Self.buffer("first answer"), promise: nil)
        second.writeAndFlush(Self.buffer("second answer"), promise: nil)
        #expect(try first.readOutbound(as: ByteBuffer.self) == nil)
        #expect(try second.readOutbound(as: ByteBuffer.self) == nil)

        loop.run()
        #expect(queuedWorkRan)
        #expect(sentWhenQueuedWorkRan == nil)
        #expect(try first.readOutbound(as: ByteBuffer.self) == Self.buffer("first answer"))
        #expect(try second.readOutbound(as: ByteBuffer.self) == Self.buffer("second answer"))
        _ = try first.finish()
        _ = try second.finish()
    }

    @Test("writes and flushes while one is held go out with it, in order")
    func laterWritesJoinTheHeldFlush() throws {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(handler: FlushCoalescingHandler(), loop: loop)
        channel.writeAndFlush(Self.buffer("one"), promise: nil)
        channel.writeAndFlush(Self.buffer("two"), promise: nil)
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
        loop.run()
        #expect(try channel.readOutbound(as: ByteBuffer.self) == Self.buffer("one"))
        #expect(try channel.readOutbound(as: ByteBuffer.self) == Self.buffer("two"))
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
        _ = try channel.finish()
    }

    @Test("closing the connection flushes what was held first")
    func closeFlushes() throws {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(handler: FlushCoalescingHandler(), loop: loop)
        let written = channel.writeAndFlush(Self.buffer("last answer"))
        channel.close(promise: nil)
        #expect(try channel.readOutbound(as: ByteBuffer.self) == Self.buffer("last answer"))
        loop.run()
        #expect(throws: Never.self) { try written.wait() }
    }

    @Test("removing the handler flushes what was held first")
    func removalFlushes() throws {
        let loop = EmbeddedEventLoop()
        let handler = FlushCoalescingHandler()
        let channel = EmbeddedChannel(handler: handler, loop: loop)
        channel.writeAndFlush(Self.buffer("answer"), promise: nil)
        channel.pipeline.syncOperations.removeHandler(handler, promise: nil)
        #expect(try channel.readOutbound(as: ByteBuffer.self) == Self.buffer("answer"))
        loop.run()
        channel.writeAndFlush(Self.buffer("after"), promise: nil)
        #expect(try channel.readOutbound(as: ByteBuffer.self) == Self.buffer("after"))
        _ = try channel.finish()
    }
}
