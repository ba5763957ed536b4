import NIOCore
import NIOPosix

/// A small SMTP client on SwiftNIO: sends one message (EHLO, MAIL FROM, RCPT TO, DATA, QUIT) to a
/// server such as the team's Mailpit, for `--smtp-forward` and for replies from the user.
enum SMTPClient {
    /// Why a message could not be sent: the server's refusal, a broken dialogue or no answer.
    struct Failure: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// Sends `message` (lines ending in CRLF or LF) from `sender` to `recipients` through `server`;
    /// returns the server's answer to the data.
    static func send(
        _ message: [UInt8], from sender: String, to recipients: [String], server: SMTPAddress,
        heloName: String = "privaterelay.appleid.com", timeout: Duration = .seconds(15)
    ) async throws -> SMTPReply {
        try await withThrowingTaskGroup(of: SMTPReply.self) { group in
            group.addTask {
                try await dialogue(message, from: sender, to: recipients, server: server, heloName: heloName)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw Failure(description: "no answer from \(server) within \(timeout)")
            }
            defer { group.cancelAll() }
            guard let reply = try await group.next() else { throw Failure(description: "not sent") }
            return reply
        }
    }

    private static func dialogue(
        _ message: [UInt8], from sender: String, to recipients: [String], server: SMTPAddress, heloName: String
    ) async throws -> SMTPReply {
        let channel: NIOAsyncChannel<SMTPInput, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(5))
                .connect(host: server.host, port: server.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(SMTPFramingHandler(maxLineLength: 4096))
                        return try NIOAsyncChannel<SMTPInput, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw Failure(description: "cannot connect to \(server): \(error)")
        }
        return try await channel.executeThenClose { inbound, outbound in
            var replies = inbound.makeAsyncIterator()
            func send(_ line: String) async throws {
                try await outbound.write(ByteBuffer(string: line + "\r\n"))
            }
            func expect(_ codes: ClosedRange<Int>, after step: String) async throws -> SMTPReply {
                var lines: [String] = []
                while lines.count < 100, let input = try await replies.next() {
                    guard case .line(let bytes, _) = input else { continue }
                    let text = String(decoding: bytes, as: UTF8.self)
                    guard text.count >= 3, let code = Int(text.prefix(3)) else {
                        throw Failure(description: "\(server) answered \(step) with \"\(text.prefix(80))\"")
                    }
                    lines.append(String(text.dropFirst(4)))
                    if text.count == 3 || text[text.index(text.startIndex, offsetBy: 3)] == " " {
                        let reply = SMTPReply(code: code, enhanced: nil, lines: lines)
                        guard codes.contains(code) else {
                            throw Failure(description: "\(server) refused \(step): \(reply)")
                        }
                        return reply
                    }
                }
                throw Failure(description: "\(server) closed the connection at \(step)")
            }
            _ = try await expect(220...220, after: "the greeting")
            try await send("EHLO \(heloName)")
            _ = try await expect(250...250, after: "EHLO")
            try await send("MAIL FROM:<\(sender)>")
            _ = try await expect(250...259, after: "MAIL FROM")
            for recipient in recipients {
                try await send("RCPT TO:<\(recipient)>")
                _ = try await expect(250...259, after: "RCPT TO <\(recipient)>")
            }
            try await send("DATA")
            _ = try await expect(354...354, after: "DATA")
            try await outbound.write(ByteBuffer(bytes: dotStuffed(message)))
            let reply = try await expect(250...259, after: "the message")
            try await send("QUIT")
            _ = try? await expect(221...221, after: "QUIT")
            return reply
        }
    }

    /// The message with CRLF line ends, each line starting with `.` doubled, and the final `.` line.
    static func dotStuffed(_ message: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(message.count + 64)
        var atLineStart = true
        var index = 0
        while index < message.count {
            let byte = message[index]
            if atLineStart, byte == UInt8(ascii: ".") { out.append(byte) }
            if byte == UInt8(ascii: "\n") {
                if out.last != UInt8(ascii: "\r") { out.append(UInt8(ascii: "\r")) }
                out.append(byte)
                atLineStart = true
            } else {
                out.append(byte)
                atLineStart = false
            }
            index += 1
        }
        if !atLineStart { out += [13, 10] }
        out += Array(".\r\n".utf8)
        return out
    }
}
