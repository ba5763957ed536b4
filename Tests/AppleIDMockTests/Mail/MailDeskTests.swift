import Foundation
import Logging
import Testing

@testable import AppleIDMock

/// The relay's steps on the state, without sockets: recipients decided and refusals kept, messages
/// relayed (counted, rewritten) or refused after DATA, lifecycle events obeyed at once, the
/// journal naming each attempt, and the mailbox read through the control plane's filters.
@Suite("Email relay desk")
struct MailDeskTests {
    static func services() async throws -> MockServices {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return try await MockServices.load(
            configuration: Fixture.configuration(), store: MemoryStore(), clock: .fixed(at: Fixture.start),
            logger: logger)
    }

    /// Sam signed in to the example app with Hide My Email; returns the relay address.
    static func samHides(_ services: MockServices) async throws -> String {
        let active = try await services.state.current()
        try await services.state.withSession(active) { session, _ in
            _ = try await session.authorize(
                userKey: "sam", appGroupId: "example", scopes: ["name", "email"], hidesEmail: true,
                now: Fixture.start)
        }
        let sam = try #require(active.world.users["sam"])
        return active.world.relayEmail(of: sam, teamId: "DEF123GHIJ")
    }

    static func envelope(_ sender: String, to relay: String, from: String? = nil) -> SMTPEnvelope {
        let message =
            "From: Example <\(from ?? sender)>\r\nSubject: Hello\r\nMessage-ID: <1@example.com>\r\n\r\nBody\r\n"
        return SMTPEnvelope(
            heloName: "client", sender: sender, recipients: [relay], message: Array(message.utf8), overTLS: false)
    }

    @Test("relayed: kept as delivered, counted for the day, journaled as DATA ok")
    func relayed() async throws {
        let services = try await Self.services()
        let relay = try await Self.samHides(services)
        let desk = MailDesk(services: services)
        #expect(await desk.checkRecipient(relay, sender: "news@example.com", overTLS: false) == nil)
        let (reply, _) = await desk.deliver(Self.envelope("news@example.com", to: relay))
        #expect(reply.code == 250)
        let records = try await services.state.mail.records()
        #expect(records.map(\.outcome.rawValue) == ["relayed"])
        let record = try #require(records.first)
        #expect(reply.description.hasSuffix("Ok: queued as \(record.id)"))
        #expect(record.deliveredTo == "sam.lee@example.org" && record.subject == "Hello")
        let raw = try #require(try await services.state.mail.message(record.id))
        #expect(String(decoding: raw, as: UTF8.self).contains("Delivered-To: sam.lee@example.org"))
        let quota = try await services.state.mail.quota(relay)
        #expect(quota.sent == 1 && quota.limit == 100)
        let journal = try await services.state.journal(
            {
                var query = JournalQuery()
                query.endpoint = "smtp"
                return query
            }(), recorder: services.journal)
        #expect(journal.map(\.method) == ["DATA", "RCPT"])
        #expect(journal.allSatisfy { $0.outcome == .ok && $0.userKey == "sam" })
    }

    @Test("refused at RCPT and after DATA: kept with the reason, nothing counted")
    func refused() async throws {
        let services = try await Self.services()
        let relay = try await Self.samHides(services)
        let desk = MailDesk(services: services)
        let refusal = await desk.checkRecipient(relay, sender: "x@nowhere.example", overTLS: false)
        #expect(refusal == SMTPReply(550, "5.1.1", "<x@nowhere.example>: unauthorized sender"))
        let (reply, _) = await desk.deliver(Self.envelope("news@example.com", to: relay, from: "boss@nowhere.example"))
        #expect(reply == SMTPReply(550, "5.1.1", "<boss@nowhere.example>: unauthorized sender"))
        let records = try await services.state.mail.records()
        #expect(records.map(\.outcome.rawValue) == ["unauthorized_sender", "unauthorized_sender"])
        #expect(records.first?.reason?.contains("From header") == true)
        #expect(records.first?.hasRaw == true && records.last?.hasRaw == false)
        #expect(try await services.state.mail.quota(relay).sent == 0)
    }

    @Test("email-disabled refuses the next message at once; email-enabled lets it through again")
    func forwardingSwitch() async throws {
        let services = try await Self.services()
        let relay = try await Self.samHides(services)
        let desk = MailDesk(services: services)
        _ = try await services.state.applyNow(
            LifecycleEvent(kind: .emailDisabled, userKey: "sam", appGroupId: "example"))
        let off = await desk.checkRecipient(relay, sender: "news@example.com", overTLS: false)
        #expect(off?.description == "550 5.1.1 <\(relay)>: user not found")
        _ = try await services.state.applyNow(
            LifecycleEvent(kind: .emailEnabled, userKey: "sam", appGroupId: "example"))
        #expect(await desk.checkRecipient(relay, sender: "news@example.com", overTLS: false) == nil)
    }

    @Test("an app transfer: the old team's address stops, the new team's address is the user's")
    func transfer() async throws {
        let services = try await Self.services()
        let old = try await Self.samHides(services)
        _ = try await services.state.startTransfer(appGroupId: "example", toTeam: "XYZ789KLMN")
        let world = try await services.state.current().world
        let new = world.relayEmail(of: try #require(world.users["sam"]), teamId: "XYZ789KLMN")
        let desk = MailDesk(services: services)
        #expect(
            await desk.checkRecipient(old, sender: "news@example.com", overTLS: false)?.description.hasSuffix(
                "user not found") == true)
        let refusal = await desk.checkRecipient(new, sender: "news@example.com", overTLS: false)
        #expect(refusal?.description.hasSuffix("unauthorized sender") == true)
        let reason = try await services.state.mail.records().first?.reason ?? ""
        #expect(reason.contains("registered for team DEF123GHIJ, not for team XYZ789KLMN"))
    }

    @Test("the daily limit on the mock's clock: refused at the limit, open again the next day")
    func dailyLimit() async throws {
        let services = try await Self.services()
        let relay = try await Self.samHides(services)
        _ = try await services.state.patchSettings(.object(["mailDailyLimit": .number(1)]))
        let desk = MailDesk(services: services)
        #expect(await desk.deliver(Self.envelope("news@example.com", to: relay)).reply.code == 250)
        let limited = await desk.checkRecipient(relay, sender: "news@example.com", overTLS: false)
        #expect(limited?.description == "550 5.7.1 <\(relay)>: daily limit of 1 messages reached")
        #expect(try await services.state.moveClock(.advance(seconds: 86_400)))
        #expect(await desk.checkRecipient(relay, sender: "news@example.com", overTLS: false) == nil)
    }

    @Test(
        "mailUnregisteredSenders drop: an unregistered sender gets 250, the mailbox says dropped, nothing is delivered")
    func dropMode() async throws {
        let services = try await Self.services()
        let relay = try await Self.samHides(services)
        _ = try await services.state.patchSettings(.object(["mailUnregisteredSenders": .string("drop")]))
        let desk = MailDesk(services: services)
        #expect(await desk.checkRecipient(relay, sender: "x@nowhere.example", overTLS: false) == nil)
        let (reply, _) = await desk.deliver(Self.envelope("x@nowhere.example", to: relay))
        #expect(reply.code == 250)
        let records = try await services.state.mail.records()
        #expect(records.map(\.outcome.rawValue) == ["dropped"])
        #expect(reply.description.hasSuffix("queued as \(records[0].id)"))
        #expect(records[0].reason?.hasPrefix("mailUnregisteredSenders is drop") == true)
        #expect(records[0].deliveredTo == nil)
        #expect(try await services.state.mail.quota(relay).sent == 0)
        // A registered sender whose From header is not registered is dropped too; a registered one relayed.
        let (spoofed, _) = await desk.deliver(
            Self.envelope("news@example.com", to: relay, from: "boss@nowhere.example"))
        #expect(spoofed.code == 250)
        #expect(await desk.deliver(Self.envelope("news@example.com", to: relay)).reply.code == 250)
        #expect(try await services.state.mail.records().map(\.outcome.rawValue) == ["relayed", "dropped", "dropped"])
        #expect(try await services.state.mail.records().first?.smtpReply.hasPrefix("250 2.0.0 Ok: queued as") == true)
    }
}
