import Foundation
import Testing

@testable import AppleIDMock

/// The relay's decisions as values, without a store or SMTP: what a recipient or a message gets,
/// which entries are written with what, which is counted and forwarded, and which id the reply names.
@Suite("Relay decisions")
struct RelayDecisionTests {
    static let policy = RelayPolicy(teams: RelayRulesTests.teams)
    static let stamp = MailStamp(
        now: Date(timeIntervalSince1970: 1_800_000_000), wallTime: Date(timeIntervalSince1970: 1_900_000_000),
        namespace: "default", ids: ["m0", "m1", "m2", "m3"])

    static func recipient(_ name: String, _ facts: RelayAddressFacts?) -> RelayRecipient {
        RelayRecipient(address: "\(name)@privaterelay.appleid.com", facts: facts)
    }

    static func envelope(_ sender: String = "news@example.com", from: String? = nil, to names: [String])
        -> SMTPEnvelope
    {
        let message =
            "From: Example <\(from ?? sender)>\r\nSubject: Hello\r\nMessage-ID: <1@example.com>\r\n\r\nBody\r\n"
        return SMTPEnvelope(
            heloName: "client", sender: sender, recipients: names.map { "\($0)@privaterelay.appleid.com" },
            message: Array(message.utf8), overTLS: true)
    }

    static func decide(_ envelope: SMTPEnvelope, _ recipients: [RelayRecipient], policy: RelayPolicy = policy)
        -> RelayDelivery
    {
        RelayRules.decide(
            envelope, headers: MessageHeaders(parsing: envelope.message), recipients: recipients, policy: policy,
            stamp: stamp)
    }

    @Test("relayed: one entry per recipient, counted, forwarded as delivered; the reply names the first")
    func relayed() throws {
        let envelope = Self.envelope(to: ["a", "b"])
        let decision = Self.decide(
            envelope, [Self.recipient("a", RelayRulesTests.facts()), Self.recipient("b", RelayRulesTests.facts())])
        #expect(decision.reply == SMTPReply(250, "2.0.0", "Ok: queued as m0"))
        #expect(decision.bodyId == "m0" && decision.keepsBody)
        #expect(decision.entries.map(\.record.id) == ["m0", "m2"])
        #expect(decision.entries.allSatisfy { $0.counts && $0.delivered != nil && $0.kept == $0.delivered })
        let record = try #require(decision.entries.first?.record)
        #expect(record.outcome == .relayed && record.recipient == "a@privaterelay.appleid.com")
        #expect(record.deliveredTo == "sam.lee@example.org" && record.userKey == "sam" && record.teamId == "DEF123GHIJ")
        #expect(record.rewrittenFrom?.hasPrefix("\"Example\" <news_at_example_com_") == true)
        #expect(record.at == Self.stamp.now && record.wallTime == Self.stamp.wallTime && record.overTLS)
        #expect(record.smtpReply == decision.reply.description && record.namespace == "default")
        let delivered = try #require(decision.entries.first?.delivered)
        let text = String(decoding: try #require(delivered.assembled(over: Data(envelope.message))), as: UTF8.self)
        #expect(text.contains("Delivered-To: sam.lee@example.org\r\n") && text.contains("id m0\r\n"))
        #expect(record.size == text.utf8.count)
    }

    @Test("one refused recipient refuses the message for all, with the first refusal; nothing counted")
    func refusedForAll() {
        let decision = Self.decide(
            Self.envelope(to: ["a", "gone", "b"]),
            [
                Self.recipient("a", RelayRulesTests.facts()),
                Self.recipient("gone", RelayRulesTests.facts(deleted: true)),
                Self.recipient("b", nil),
            ])
        #expect(decision.reply.description == "550 5.1.1 <gone@privaterelay.appleid.com>: user not found")
        #expect(decision.entries.map(\.record.outcome) == [.userNotFound, .userNotFound, .userNotFound])
        #expect(decision.entries.map(\.record.userKey) == ["sam", "sam", nil])
        #expect(decision.entries.allSatisfy { !$0.counts && $0.delivered == nil })
        #expect(decision.entries.allSatisfy { $0.kept == MailMessage(data: Data(), body: "m0") })
        #expect(decision.entries.map(\.record.id) == ["m0", "m2", "m3"])
    }

    @Test("a message refusal (the From header) refuses every recipient")
    func messageRefused() {
        let decision = Self.decide(
            Self.envelope(from: "boss@nowhere.example", to: ["a"]), [Self.recipient("a", RelayRulesTests.facts())])
        #expect(decision.reply == SMTPReply(550, "5.1.1", "<boss@nowhere.example>: unauthorized sender"))
        #expect(decision.entries.map(\.record.outcome) == [.unauthorizedSender])
        #expect(decision.entries.first?.record.reason?.contains("From header") == true)
    }

    @Test("mailUnregisteredSenders drop: 250, kept as dropped with the reason, never counted or forwarded")
    func dropped() {
        var policy = Self.policy
        policy.dropsUnregisteredSenders = true
        let decision = Self.decide(
            Self.envelope("x@nowhere.example", to: ["a"]), [Self.recipient("a", RelayRulesTests.facts())],
            policy: policy)
        #expect(decision.reply == SMTPReply(250, "2.0.0", "Ok: queued as m0"))
        #expect(decision.entries.map(\.record.outcome) == [.dropped])
        #expect(decision.entries.first?.record.reason?.hasPrefix("mailUnregisteredSenders is drop") == true)
        #expect(decision.entries.allSatisfy { !$0.counts && $0.delivered == nil && $0.record.deliveredTo == nil })
        // A registered envelope sender whose From header the policy drops: the targets are dropped too.
        let spoofed = Self.decide(
            Self.envelope(from: "boss@nowhere.example", to: ["a"]), [Self.recipient("a", RelayRulesTests.facts())],
            policy: policy)
        #expect(spoofed.reply.code == 250 && spoofed.entries.map(\.record.outcome) == [.dropped])
    }

    @Test("dropped and relayed recipients of one message: the dropped are written first, the reply names the relayed")
    func droppedAndRelayed() {
        var policy = Self.policy
        policy.dropsUnregisteredSenders = true
        let decision = Self.decide(
            Self.envelope("receipts@payments.example.net", to: ["a", "other"]),
            [
                Self.recipient("a", RelayRulesTests.facts()),
                Self.recipient("other", RelayRulesTests.facts(team: "XYZ789KLMN")),
            ], policy: policy)
        #expect(decision.entries.map(\.record.outcome) == [.dropped, .relayed])
        #expect(decision.entries.map(\.record.id) == ["m1", "m0"])
        #expect(decision.reply.description.hasSuffix("queued as m0"))
    }

    @Test("a message larger than mailboxMaxBytes is not kept; the entries say so")
    func tooLargeToKeep() {
        var policy = Self.policy
        policy.mailboxMaxBytes = 10
        let decision = Self.decide(
            Self.envelope(to: ["a"]), [Self.recipient("a", RelayRulesTests.facts())], policy: policy)
        #expect(!decision.keepsBody)
        #expect(decision.entries.allSatisfy { !$0.record.hasRaw && $0.kept == nil && $0.delivered != nil })
    }

    @Test("at RCPT TO: accepted, refused with its entry, or accepted for a drop")
    func recipient() {
        let accepted = RelayRules.decideRecipient(
            "A@privaterelay.appleid.com", sender: "news@example.com", facts: RelayRulesTests.facts(), overTLS: false,
            policy: Self.policy, stamp: Self.stamp)
        #expect(accepted.record == nil && (try? accepted.result.get().address) == "a@privaterelay.appleid.com")
        let refused = RelayRules.decideRecipient(
            "A@privaterelay.appleid.com", sender: "x@nowhere.example", facts: RelayRulesTests.facts(), overTLS: true,
            policy: Self.policy, stamp: Self.stamp)
        #expect(refused.record?.outcome == .unauthorizedSender && refused.record?.id == "m0")
        #expect(refused.record?.recipient == "a@privaterelay.appleid.com" && refused.record?.overTLS == true)
        #expect(refused.record?.smtpReply == "550 5.1.1 <x@nowhere.example>: unauthorized sender")
        var policy = Self.policy
        policy.dropsUnregisteredSenders = true
        let dropped = RelayRules.decideRecipient(
            "a@privaterelay.appleid.com", sender: "x@nowhere.example", facts: RelayRulesTests.facts(), overTLS: false,
            policy: policy, stamp: Self.stamp)
        #expect(dropped.record == nil && (try? dropped.result.get().deliverTo) == "sam.lee@example.org")
        let unknown = RelayRules.decideRecipient(
            "a@privaterelay.appleid.com", sender: "x@nowhere.example", facts: nil, overTLS: false, policy: policy,
            stamp: Self.stamp)
        #expect(unknown.record?.outcome == .userNotFound)
    }

    @Test("recipients once each, compared without case, the first spelling kept")
    func distinct() {
        #expect(RelayRules.distinct(["A@x", "a@x", "b@x", "B@X"]) == ["A@x", "b@x"])
    }
}
