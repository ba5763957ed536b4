import Foundation
import Testing

@testable import AppleIDMock

/// The relay takes mail for a user's relay address in both relay domains (`relayDomain`), so
/// addresses handed out before a switch keep working.
@Suite("Relay domains")
struct RelayDomainTests {
    @Test("mail to the same relay address in either domain is relayed to the user")
    func bothDomains() async throws {
        let services = try await MailDeskTests.services()
        let relay = try await MailDeskTests.samHides(services)
        #expect(relay.hasSuffix("@privaterelay.appleid.com"))
        let local = relay.prefix { $0 != "@" }
        let desk = MailDesk(services: services)
        for address in [relay, local + "@private.icloud.com", local.uppercased() + "@PRIVATE.ICLOUD.COM"] {
            #expect(await desk.checkRecipient(address, sender: "news@example.com", overTLS: false) == nil, "\(address)")
            let (reply, _) = await desk.deliver(MailDeskTests.envelope("news@example.com", to: address))
            #expect(reply.code == 250, "\(address)")
        }
        #expect(await desk.checkRecipient(local + "@icloud.com", sender: "news@example.com", overTLS: false) != nil)
        let records = try await services.state.mail.records()
        let relayed = records.filter { $0.outcome == .relayed }
        #expect(relayed.map(\.deliveredTo) == Array(repeating: "sam.lee@example.org", count: 3))
        #expect(records.filter { $0.outcome != .relayed }.count == 1, "the @icloud.com address is refused")
    }
}
