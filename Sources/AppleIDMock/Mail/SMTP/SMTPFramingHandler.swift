import NIOCore

/// Cuts the bytes of an SMTP connection into lines for the dialogue: LF ends a line (a CR before it
/// is taken off, and a bare LF is reported as such); a line longer than `maxLineLength` comes in
/// pieces of at most that length, so a client that never sends LF costs no more than one piece.
///
/// After STARTTLS the dialogue sends `SMTPFramingHandler.TLSStarted` down the pipeline once the TLS
/// handler is in place: whatever the client pipelined in the clear after STARTTLS is then thrown
/// away (RFC 3207 §4.2), and `.tlsStarted` tells the dialogue where the encrypted part begins.
final class SMTPFramingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = SMTPInput

    /// The event that marks the start of TLS.
    struct TLSStarted: Sendable {}

    /// The longest piece handed on at once.
    let maxLineLength: Int
    private var buffer: ByteBuffer?

    init(maxLineLength: Int) {
        self.maxLineLength = max(16, maxLineLength)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if buffer == nil {
            buffer = incoming
        } else {
            buffer?.writeBuffer(&incoming)
        }
        drain(context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is TLSStarted else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        buffer = nil
        context.fireChannelRead(wrapInboundOut(.tlsStarted))
    }

    /// Hands on every whole line and every full piece in the buffer.
    private func drain(_ context: ChannelHandlerContext) {
        while var current = buffer, current.readableBytes > 0 {
            let view = current.readableBytesView
            let lineFeed = view.firstIndex(of: UInt8(ascii: "\n"))
            let length = lineFeed.map { $0 - view.startIndex } ?? view.count
            if length > maxLineLength {
                // A piece; a CR at its end stays with the rest, so CRLF is never split.
                var take = maxLineLength
                if view[view.startIndex + take - 1] == UInt8(ascii: "\r") { take -= 1 }
                let piece = current.readBytes(length: take) ?? []
                buffer = current
                context.fireChannelRead(wrapInboundOut(.fragment(piece)))
                continue
            }
            guard lineFeed != nil else { break }
            var line = current.readBytes(length: length) ?? []
            current.moveReaderIndex(forwardBy: 1)
            let crlf = line.last == UInt8(ascii: "\r")
            if crlf { line.removeLast() }
            buffer = current
            context.fireChannelRead(wrapInboundOut(.line(line, crlf: crlf)))
        }
        if var current = buffer {
            current.discardReadBytes()
            buffer = current.readableBytes == 0 ? nil : current
        }
    }
}
