import Foundation
import Testing

@testable import AppleIDMock

/// The mailbox under load, without sockets: repeated recipients are one delivery, the daily limit
/// counts once per message and address, a message is kept once whatever its recipients, the
/// mailbox stays within `mailboxMaxBytes` (oldest dropped, counted), refusals cannot flush relayed
/// mail, and a reply takes its place in the day's limit in one step.
@Suite("Mailbox bounds")
struct MailboxBoundsTests {
    static func envelope(to recipients: [String], body: String = "Body\r\n") -> SMTPEnvelope {
        let message = "From: News <news@example.com>\r\nSubject: Hello\r\nMessage-ID: <1@example.com>\r\n\r\n" + body
        return SMTPEnvelope(
            heloName: "client", sender: "news@example.com", recipients: recipients, message: Array(message.utf8),
            overTLS: false)
    }

    @Test("100 copies of one recipient: one entry, counted once, the message kept once")
    func repeatedRecipients() async throws {
        let services = try await MailDeskTests.services()
        let relay = try await MailDeskTests.samHides(services)
        let desk = MailDesk(services: services)
        let recipients = (0..<100).map { $0 % 2 == 0 ? relay : relay.uppercased() }
        let (reply, _) = await desk.deliver(Self.envelope(to: recipients))
        #expect(reply.code == 250)
        #expect(try await services.state.mail.records().count == 1)
        #expect(try await services.state.mail.quota(relay).sent == 1)
        let usage = try await services.state.mail.usage()
        #expect(usage.kept.count == 1)
    }

    @Test("two relay addresses: two entries, each raw message whole, the received message stored once")
    func keptOnce() async throws {
        let services = try await MailDeskTests.services()
        let sam = try await MailDeskTests.samHides(services)
        let active = try await services.state.current()
        try await services.state.withSession(active) { session, _ in
            _ = try await session.authorize(
                userKey: "alex", appGroupId: "example", scopes: ["name", "email"], hidesEmail: true,
                now: Fixture.start)
        }
        let alex = active.world.relayEmail(of: try #require(active.world.users["alex"]), teamId: "DEF123GHIJ")
        let body = String(repeating: "line of the body\r\n", count: 1000)
        let (reply, _) = await MailDesk(services: services).deliver(Self.envelope(to: [sam, alex], body: body))
        #expect(reply.code == 250)
        let records = try await services.state.mail.records()
        #expect(records.count == 2)
        let stored = try await services.state.store.transaction { try await $0.list(Spaces.mailBody).count }
        #expect(stored == 1)
        for record in records {
            let raw = String(decoding: try #require(try await services.state.mail.message(record.id)), as: UTF8.self)
            #expect(raw.contains("Delivered-To: \(try #require(record.deliveredTo))\r\n"))
            #expect(raw.hasSuffix("\r\n\r\n" + body) && !raw.contains("From: News <news@example.com>"))
            #expect(raw.utf8.count == record.size)
        }
    }

    @Test("mailboxMaxBytes: the oldest messages are dropped first and counted; the entries stay")
    func sizeBound() async throws {
        let services = try await MailDeskTests.services()
        let relay = try await MailDeskTests.samHides(services)
        _ = try await services.state.patchSettings(.object(["mailboxMaxBytes": .number(1_048_576)]))
        let desk = MailDesk(services: services)
        let body = String(repeating: String(repeating: "x", count: 98) + "\r\n", count: 3_000)  // 300 kB
        for _ in 0..<5 { #expect(await desk.deliver(Self.envelope(to: [relay], body: body)).reply.code == 250) }
        let usage = try await services.state.mail.usage()
        #expect(usage.keptBytes <= 1_048_576 && usage.kept.count == 3)
        #expect(usage.droppedMessages == 2)
        let records = try await services.state.mail.records()
        #expect(records.count == 5)
        #expect(try await services.state.mail.message(records[0].id) != nil)
        #expect(try await services.state.mail.message(records[4].id) == nil)
    }

    @Test("a flood of refusals does not flush relayed mail")
    func refusalFlood() async throws {
        let services = try await MailDeskTests.services()
        let relay = try await MailDeskTests.samHides(services)
        let desk = MailDesk(services: services)
        #expect(await desk.deliver(Self.envelope(to: [relay])).reply.code == 250)
        for index in 0..<(MailboxLimits.refusals + 50) {
            _ = await desk.checkRecipient(
                "nobody\(index)@privaterelay.appleid.com", sender: "a@b.example", overTLS: false)
        }
        let records = try await services.state.mail.records()
        #expect(records.filter { $0.outcome == .relayed }.count == 1)
        #expect(records.filter { $0.outcome == .userNotFound }.count == MailboxLimits.refusals)
    }

    @Test("a reply reserves its place in the day's limit in one step; a failed one gives it back")
    func replyReservation() async throws {
        let services = try await MailDeskTests.services()
        let relay = try await MailDeskTests.samHides(services)
        _ = try await services.state.patchSettings(.object(["mailDailyLimit": .number(2)]))
        let steps = services.state.mail
        async let first = steps.reserveReply(from: relay)
        async let second = steps.reserveReply(from: relay)
        async let third = steps.reserveReply(from: relay)
        let results = try await [first, second, third]
        #expect(results.filter { if case .success = $0 { true } else { false } }.count == 2)
        #expect(try await steps.quota(relay).sent == 2)
        let failed = MailRecord(
            id: "r1", at: Fixture.start, wallTime: Fixture.start, direction: .reply, outcome: .failed, smtpReply: "",
            envelopeSender: relay, recipient: "news@example.com", overTLS: false, hasRaw: true)
        try await steps.finishReply(failed, message: Array("x".utf8), reservedFor: relay, on: Fixture.start)
        #expect(try await steps.quota(relay).sent == 1)
    }
}
