import NIOCore
import NIOEmbedded
import Testing

@testable import AppleIDMock

/// The framing: lines on CRLF or bare LF, long lines in bounded pieces, and plaintext thrown away
/// when TLS starts.
@Suite("SMTP framing")
struct SMTPFramingTests {
    static func inputs(_ channel: EmbeddedChannel) throws -> [SMTPInput] {
        var result: [SMTPInput] = []
        while let input = try channel.readInbound(as: SMTPInput.self) { result.append(input) }
        return result
    }

    @Test("CRLF and bare LF end lines; a partial line waits for its end")
    func lines() throws {
        let channel = EmbeddedChannel(handler: SMTPFramingHandler(maxLineLength: 64))
        try channel.writeInbound(ByteBuffer(string: "EHLO a\r\nNOOP\nMAIL"))
        #expect(
            try Self.inputs(channel) == [
                .line(Array("EHLO a".utf8), crlf: true), .line(Array("NOOP".utf8), crlf: false),
            ])
        try channel.writeInbound(ByteBuffer(string: " FROM:<>\r\n"))
        #expect(try Self.inputs(channel) == [.line(Array("MAIL FROM:<>".utf8), crlf: true)])
        _ = try channel.finish()
    }

    @Test("a line longer than the limit comes in pieces of at most the limit, never held whole")
    func longLine() throws {
        let channel = EmbeddedChannel(handler: SMTPFramingHandler(maxLineLength: 16))
        try channel.writeInbound(ByteBuffer(string: String(repeating: "x", count: 40)))
        let pieces = try Self.inputs(channel)
        #expect(
            pieces == [
                .fragment(Array(repeating: UInt8(ascii: "x"), count: 16)),
                .fragment(Array(repeating: UInt8(ascii: "x"), count: 16)),
            ])
        try channel.writeInbound(ByteBuffer(string: "\r\n"))
        #expect(try Self.inputs(channel) == [.line(Array("xxxxxxxx".utf8), crlf: true)])
        _ = try channel.finish()
    }

    @Test("when TLS starts, buffered plaintext is dropped and the mark comes next")
    func tlsMark() throws {
        let channel = EmbeddedChannel(handler: SMTPFramingHandler(maxLineLength: 64))
        try channel.writeInbound(ByteBuffer(string: "STARTTLS\r\nMAIL FROM:<inj"))
        #expect(try Self.inputs(channel) == [.line(Array("STARTTLS".utf8), crlf: true)])
        channel.pipeline.fireUserInboundEventTriggered(SMTPFramingHandler.TLSStarted())
        try channel.writeInbound(ByteBuffer(string: "EHLO a\r\n"))
        #expect(try Self.inputs(channel) == [.tlsStarted, .line(Array("EHLO a".utf8), crlf: true)])
        _ = try channel.finish()
    }
}
