import AppleIDMockTesting
import Foundation
import Testing

@testable import AppleIDMock

/// The email relay end to end inside the test process: the kit starts the mock with SMTP on a free
/// port, the mock's own SMTP client sends as a backend would, and the kit reads the mailbox.
@Suite("Email relay, live", .tags(.live))
struct MailRelayLiveTests {
    static func message(from sender: String, to relay: String, subject: String = "Welcome") -> [UInt8] {
        Array(
            "From: Example <\(sender)>\r\nTo: <\(relay)>\r\nSubject: \(subject)\r\nMessage-ID: <\(UUID())@example.com>\r\n\r\nHello.\r\n"
                .utf8)
    }

    @Test("a registered sender's message is relayed to the user's real address; an unregistered one is refused")
    func relayAndRefuse() async throws {
        try await MockAppleID.run(options: .init(smtpPort: 0)) { mock in
            _ = try await mock.signInNative("sam", bundleId: "com.example.app")
            let relay = try await mock.relayAddress(of: "sam", appGroup: "example")
            let port = try #require(try await mock.smtpPort())
            let server = SMTPAddress(host: "127.0.0.1", port: port)
            let answer = try await SMTPClient.send(
                Self.message(from: "news@example.com", to: relay), from: "news@example.com", to: [relay], server: server
            )
            #expect(answer.code == 250)
            let relayed = try await mock.waitForMail(user: "sam")
            #expect(relayed.first?.deliveredTo == "sam.lee@example.org")
            #expect(relayed.first?.subject == "Welcome")
            let raw = try await mock.rawMail(try #require(relayed.first?.id))
            #expect(raw.contains("Delivered-To: sam.lee@example.org"))
            await #expect {
                _ = try await SMTPClient.send(
                    Self.message(from: "x@nowhere.example", to: relay), from: "x@nowhere.example", to: [relay],
                    server: server)
            } throws: { error in
                "\(error)".contains("550 5.1.1 <x@nowhere.example>: unauthorized sender")
            }
            let refused = try await mock.waitForMail(user: "sam", outcome: "unauthorized_sender")
            #expect(refused.first?.reason?.contains("not registered for team DEF123GHIJ") == true)
        }
    }

    @Test("without --smtp-port there is no listener, and the mailbox says how to turn it on")
    func offByDefault() async throws {
        try await MockAppleID.run(.router) { mock in
            #expect(try await mock.smtpPort() == nil)
            let answer = try await mock.send(.get, "/__admin/mail")
            #expect(answer.status == 200 && answer.body.contains("--smtp-port"))
        }
    }
}
