import NIOCore

/// Answers a client that stays silent too long (`IdleStateHandler`'s read event) with `421` and
/// closes the connection, as an MTA does, instead of dropping it without a word.
final class SMTPIdleHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The host name the reply names.
    let hostName: String

    init(hostName: String) {
        self.hostName = hostName
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        let reply = SMTPReply(421, "4.4.2", "\(hostName) Error: timeout exceeded")
        let buffer = context.channel.allocator.buffer(string: reply.wire)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in bound.value.close(promise: nil) }
    }
}
