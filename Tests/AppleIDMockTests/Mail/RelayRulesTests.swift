import Foundation
import Testing

@testable import AppleIDMock

/// Apple's relay rules on values: registered senders, the address's state, the daily limit, the
/// From header and DKIM; and the message as delivered.
@Suite("Relay rules")
struct RelayRulesTests {
    static let teams: [String: Team] = {
        let world = try? Fixture.defaultWorld()
        return world?.teams ?? [:]
    }()

    static func facts(
        deleted: Bool = false, groups: [(String, Bool)] = [("example", true)], sentToday: Int = 0,
        team: String = "DEF123GHIJ"
    ) -> RelayAddressFacts {
        RelayAddressFacts(
            userKey: "sam", teamId: team, realEmail: "sam.lee@example.org", accountDeleted: deleted,
            hiddenGroups: groups.map { (appGroupId: $0.0, forwarding: $0.1) }, sentToday: sentToday)
    }

    static func decide(_ sender: String, _ facts: RelayAddressFacts?, limit: Int = 100) -> Result<
        RelayTarget, RelayRefusal
    > {
        RelayRules.recipient(
            "X@privaterelay.appleid.com", sender: sender, facts: facts, teams: teams, dailyLimit: limit)
    }

    @Test("the bundled scenario registers example.com and one address for Example Corp, nothing for Other Studio")
    func bundledSources() {
        #expect(
            Self.teams["DEF123GHIJ"]?.emailSources
                == EmailSources(domains: ["example.com"], addresses: ["receipts@payments.example.net"]))
        #expect(Self.teams["XYZ789KLMN"]?.emailSources.isEmpty == true)
    }

    @Test("a registered domain or address is relayed, to the user's real address")
    func registered() throws {
        let target = try Self.decide("News@Example.com", Self.facts()).get()
        #expect(
            target
                == RelayTarget(
                    address: "x@privaterelay.appleid.com", userKey: "sam", teamId: "DEF123GHIJ",
                    deliverTo: "sam.lee@example.org"))
        #expect(throws: Never.self) { try Self.decide("receipts@payments.example.net", Self.facts()).get() }
    }

    @Test("an unregistered envelope sender is 550 5.1.1 unauthorized sender; a subdomain is not the domain")
    func unregistered() {
        for sender in ["a@mail.example.com", "someone@payments.example.net", ""] {
            guard case .failure(let refusal) = Self.decide(sender, Self.facts()) else {
                Issue.record("\(sender) relayed")
                continue
            }
            #expect(refusal.reply == SMTPReply(550, "5.1.1", "<\(sender)>: unauthorized sender"))
            #expect(refusal.outcome == .unauthorizedSender)
        }
    }

    @Test("a sender registered for the other team is refused, and the reason says so")
    func otherTeam() {
        guard case .failure(let refusal) = Self.decide("news@example.com", Self.facts(team: "XYZ789KLMN")) else {
            Issue.record("relayed across teams")
            return
        }
        #expect(refusal.outcome == .unauthorizedSender)
        #expect(refusal.reason.contains("registered for team DEF123GHIJ, not for team XYZ789KLMN"))
    }

    @Test("unknown, deleted, not hidden, or forwarding off: 550 5.1.1 user not found")
    func userNotFound() {
        for facts in [nil, Self.facts(deleted: true), Self.facts(groups: []), Self.facts(groups: [("example", false)])]
        {
            guard case .failure(let refusal) = Self.decide("news@example.com", facts) else {
                Issue.record("relayed")
                continue
            }
            #expect(refusal.reply == SMTPReply(550, "5.1.1", "<X@privaterelay.appleid.com>: user not found"))
        }
    }

    @Test("the daily limit refuses the message after the limit")
    func dailyLimit() {
        #expect(throws: Never.self) { try Self.decide("news@example.com", Self.facts(sentToday: 99)).get() }
        guard case .failure(let refusal) = Self.decide("news@example.com", Self.facts(sentToday: 100)) else {
            Issue.record("over the limit")
            return
        }
        #expect(refusal.outcome == .dailyLimit)
    }

    static let target = RelayTarget(
        address: "x@privaterelay.appleid.com", userKey: "sam", teamId: "DEF123GHIJ", deliverTo: "sam.lee@example.org")

    static func headers(_ text: String) -> MessageHeaders { MessageHeaders(parsing: Array(text.utf8)) }

    @Test("the From header must be registered too; DKIM with a registered d= when required")
    func fromAndDKIM() {
        let good = Self.headers("From: Example <news@example.com>\r\nSubject: hi\r\n\r\nbody\r\n")
        #expect(RelayRules.message(good, targets: [Self.target], teams: Self.teams, requireDKIM: false) == nil)
        let bad = Self.headers("From: spoof@elsewhere.example\r\n\r\n")
        #expect(
            RelayRules.message(bad, targets: [Self.target], teams: Self.teams, requireDKIM: false)?.outcome.rawValue
                == "unauthorized_sender")
        #expect(
            RelayRules.message(good, targets: [Self.target], teams: Self.teams, requireDKIM: true)?.outcome.rawValue
                == "dkim_required")
        let signed = Self.headers(
            "DKIM-Signature: v=1; a=rsa-sha256;\r\n d=mail.example.com; s=s1; b=abc\r\nFrom: <news@example.com>\r\n\r\n"
        )
        #expect(signed.dkimDomains == ["mail.example.com"])
        #expect(RelayRules.message(signed, targets: [Self.target], teams: Self.teams, requireDKIM: true) == nil)
        let foreign = Self.headers("DKIM-Signature: v=1; d=evil.example; b=x\r\nFrom: <news@example.com>\r\n\r\n")
        #expect(
            RelayRules.message(foreign, targets: [Self.target], teams: Self.teams, requireDKIM: true)?.outcome.rawValue
                == "dkim_required")
    }

    @Test("headers: folded lines, display names, encoded subjects")
    func headers() throws {
        let headers = Self.headers(
            "From: \"Shop, Inc\" <shop@example.com>\nSubject: =?UTF-8?B?w4lsw6lnYW50?=\n =?UTF-8?Q?_caf=C3=A9?=\n\nbody"
        )
        #expect(headers.fromAddress == "shop@example.com")
        #expect(try headers.authors.get().from.first?.displayName == "Shop, Inc")
        #expect(headers.subject == "Élégant café")
        #expect(MessageHeaders.address(in: "plain@example.com (comment)") == "plain@example.com")
    }

    @Test("delivered: Received and Delivered-To on top, From rewritten for replies, the body untouched")
    func delivered() {
        let message = Array("From: Example <news@example.com>\r\nSubject: hi\r\n\r\nbody\r\n.line\r\n".utf8)
        let headers = MessageHeaders(parsing: message)
        let out = String(
            decoding: RelayRewriting.delivered(
                message, headers: headers, target: Self.target, heloName: "client", id: "id1",
                at: Date(timeIntervalSince1970: 0), overTLS: false), as: UTF8.self)
        let replyAddress = RelayRewriting.replyAddress(for: "news@example.com", relayAddress: Self.target.address)
        #expect(replyAddress.hasPrefix("news_at_example_com_") && replyAddress.hasSuffix("@icloud.com"))
        #expect(out.hasPrefix("Received: from client by privaterelay.appleid.com"))
        #expect(out.contains("Delivered-To: sam.lee@example.org\r\n"))
        #expect(out.contains("From: \"Example\" <\(replyAddress)>\r\nSubject: hi\r\n\r\nbody\r\n.line\r\n"))
        #expect(!out.contains("From: Example <news@example.com>"))
    }

    @Test("a reply goes from the relay address to the original sender, threaded")
    func reply() {
        let record = MailRecord(
            id: "m1", at: Date(), wallTime: Date(), direction: .inbound, outcome: .relayed, smtpReply: "250",
            envelopeSender: "bounce@example.com", recipient: "x@privaterelay.appleid.com",
            from: "Shop <shop@example.com>",
            subject: "Your order", messageId: "<abc@example.com>", overTLS: false, hasRaw: true)
        let reply = ReplyComposer.compose(
            to: record, text: "Thanks!", subject: nil, userName: "Sam Lee", id: "r1", at: Date())
        let text = String(decoding: reply.message, as: UTF8.self)
        #expect(reply.sender == "x@privaterelay.appleid.com" && reply.recipient == "shop@example.com")
        #expect(text.contains("From: \"Sam Lee\" <x@privaterelay.appleid.com>\r\n"))
        #expect(text.contains("Subject: Re: Your order\r\n") && text.contains("In-Reply-To: <abc@example.com>\r\n"))
        #expect(text.hasSuffix("\r\n\r\nThanks!\r\n"))
    }

    @Test("emailSources in a scenario: bad domains and addresses are named with their path")
    func scenarioField() throws {
        var scenario = ScenarioValidationTests.valid()
        var team = (scenario["teams"] as? [[String: Any]])?.first ?? [:]
        team["emailSources"] = [
            "domains": ["example.com", "not a domain", "@x.com"], "addresses": ["nobody"], "other": 1,
        ]
        scenario["teams"] = [team]
        let problems = try ScenarioValidationTests.problems(scenario)
        let paths = problems.map(\.path)
        #expect(paths.contains("$.teams[0].emailSources.domains[1]"))
        #expect(paths.contains("$.teams[0].emailSources.domains[2]"))
        #expect(paths.contains("$.teams[0].emailSources.addresses[0]"))
        #expect(paths.contains("$.teams[0].emailSources.other"))
    }
}
