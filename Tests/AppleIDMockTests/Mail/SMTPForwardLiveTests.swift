import AppleIDMockTesting
import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import AppleIDMock

/// Copies to `--smtp-forward` run beside the SMTP dialogue: a forward server that never answers
/// does not hold the client that sent the message.
@Suite("Forwarding beside the dialogue", .timeLimit(.minutes(1)), .tags(.live))
struct SMTPForwardLiveTests {
    @Test("after 250 for a message, the next command is answered while its forward still waits")
    func forwardDoesNotHoldTheDialogue() async throws {
        // A forward server that takes the connection and never says a word (the forward waits 15 s).
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let forwardPort = try #require(silent.localAddress?.port)
        try await MockAppleID.run(options: .init(smtpPort: 0, smtpForward: "127.0.0.1:\(forwardPort)")) { mock in
            _ = try await mock.signInNative("sam", bundleId: "com.example.app")
            let relay = try await mock.relayAddress(of: "sam", appGroup: "example")
            let port = try #require(try await mock.smtpPort())
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(SMTPFramingHandler(maxLineLength: 4096))
                        return try NIOAsyncChannel<SMTPInput, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            try await channel.executeThenClose { inbound, outbound in
                var replies = inbound.makeAsyncIterator()
                func reply() async throws -> String {
                    while let input = try await replies.next() {
                        guard case .line(let bytes, _) = input else { continue }
                        let text = String(decoding: bytes, as: UTF8.self)
                        if text.count < 4 || text.dropFirst(3).first == " " { return text }
                    }
                    return ""
                }
                func say(_ line: String) async throws -> String {
                    try await outbound.write(ByteBuffer(string: line + "\r\n"))
                    return try await reply()
                }
                var answers = [try await reply()]
                answers.append(try await say("EHLO client.example"))
                answers.append(try await say("MAIL FROM:<news@example.com>"))
                answers.append(try await say("RCPT TO:<\(relay)>"))
                answers.append(try await say("DATA"))
                answers.append(try await say("From: <news@example.com>\r\nSubject: Hello\r\n\r\nHello.\r\n."))
                let asked = ContinuousClock.now
                answers.append(try await say("NOOP"))
                #expect(answers.map { $0.prefix(3) } == ["220", "250", "250", "250", "354", "250", "250"])
                #expect(ContinuousClock.now - asked < .seconds(5))
            }
            let relayed = try await mock.waitForMail(user: "sam")
            #expect(relayed.first?.outcome == "relayed" && relayed.first?.forward == nil)
        }
        try await silent.close()
    }
}
