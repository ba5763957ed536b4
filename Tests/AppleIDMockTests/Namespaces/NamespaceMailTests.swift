import Foundation
import Testing

@testable import AppleIDMock

/// The email relay across namespaces: a recipient's relay address names the namespace whose users
/// own it, and the mailbox, the day's count and the journal are that namespace's.
@Suite("Namespaces: the email relay")
struct NamespaceMailTests {
    /// Sam signed in to the example app with Hide My Email in `state`'s world; his relay address.
    private static func samHides(in state: MockState) async throws -> String {
        let active = try await state.current()
        try await state.withSession(active) { session, _ in
            _ = try await session.authorize(
                userKey: "sam", appGroupId: "example", scopes: ["name", "email"], hidesEmail: true,
                now: Fixture.start)
        }
        return active.world.relayEmail(of: try #require(active.world.users["sam"]), teamId: "DEF123GHIJ")
    }

    @Test("mail to a namespace's relay address lands in its mailbox and journal, not the default's")
    func routedByAddress() async throws {
        let services = try await MailDeskTests.services()
        try await services.namespaces.put("team-a", NamespaceOptions())
        let team = try await services.namespaces.state(for: "team-a")
        let teamRelay = try await Self.samHides(in: team)
        let homeRelay = try await Self.samHides(in: services.state)
        #expect(teamRelay != homeRelay)
        let desk = MailDesk(services: services)
        #expect(await desk.checkRecipient(teamRelay, sender: "news@example.com", overTLS: false) == nil)
        let (reply, _) = await desk.deliver(MailDeskTests.envelope("news@example.com", to: teamRelay))
        #expect(reply.code == 250)
        let records = try await team.mail.records()
        #expect(records.map(\.outcome.rawValue) == ["relayed"])
        #expect(records.first?.namespace == "team-a")
        #expect(try await services.state.mail.records().isEmpty)
        #expect(try await team.mail.quota(teamRelay).sent == 1)
        let journal = try await team.journal(recorder: services.journal)
        #expect(journal.map(\.method) == ["RCPT", "DATA"])  // oldest first
        #expect(journal.allSatisfy { $0.namespace == "team-a" })
        #expect(try await services.state.journal(recorder: services.journal).isEmpty)
        // Two namespaces' recipients in one message: each relayed in its own world.
        var both = MailDeskTests.envelope("news@example.com", to: teamRelay)
        both.recipients.append(homeRelay)
        #expect(await desk.deliver(both).reply.code == 250)
        #expect(try await team.mail.records().count == 2)
        #expect(try await services.state.mail.records().map(\.namespace) == ["default"])
    }
}
