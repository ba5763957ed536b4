#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The relay's decisions as values: from a recipient or a message as read, what the relay knows of
/// its addresses, the world's policy and the stamp, what to answer and what to write. No store, no
/// SMTP: the store steps load what these read and write what they decide.
extension RelayRules {
    /// The decision at RCPT TO: the target, or the refusal and its entry. A sender the policy
    /// drops is accepted here (its message is kept as dropped after DATA).
    static func decideRecipient(
        _ address: String, sender: String, facts: RelayAddressFacts?, overTLS: Bool, policy: RelayPolicy,
        stamp: MailStamp
    ) -> RecipientDecision {
        let result = recipient(
            address, sender: sender, facts: facts, teams: policy.teams, dailyLimit: policy.dailyLimit)
        guard case .failure(let refusal) = result else { return RecipientDecision(result: result, now: stamp.now) }
        if let facts, policy.drops(refusal) {
            let target = RelayTarget(
                address: address.lowercased(), userKey: facts.userKey, teamId: facts.teamId,
                deliverTo: facts.realEmail)
            return RecipientDecision(result: .success(target), now: stamp.now)
        }
        let record = MailRecord(
            id: stamp.id(0), at: stamp.now, wallTime: stamp.wallTime, direction: .inbound, outcome: refusal.outcome,
            reason: refusal.reason, smtpReply: refusal.reply.description, envelopeSender: sender,
            recipient: address.lowercased(), userKey: facts?.userKey, teamId: facts?.teamId, overTLS: overTLS,
            hasRaw: false, namespace: stamp.namespace)
        return RecipientDecision(result: result, record: record, now: stamp.now)
    }

    /// The recipients once each, compared without case, the first spelling kept.
    static func distinct(_ recipients: [String]) -> [String] {
        var seen: Set<String> = []
        return recipients.filter { seen.insert($0.lowercased()).inserted }
    }

    /// The decision after DATA on a message to `recipients` (distinct): relayed to every
    /// recipient, or refused for all with the first refusal (of a recipient, then of the
    /// message); a sender the policy drops is kept as dropped instead. The received message is
    /// kept once (when it fits), each entry referring to it.
    static func decide(
        _ envelope: SMTPEnvelope, headers: MessageHeaders, recipients: [RelayRecipient], policy: RelayPolicy,
        stamp: MailStamp
    ) -> RelayDelivery {
        var targets: [(recipient: RelayRecipient, target: RelayTarget)] = []
        var droppedAtRecipient: [(recipient: RelayRecipient, refusal: RelayRefusal)] = []
        var recipientRefusal: RelayRefusal?
        for one in recipients {
            switch recipient(
                one.address, sender: envelope.sender, facts: one.facts, teams: policy.teams,
                dailyLimit: policy.dailyLimit)
            {
            case .success(let target): targets.append((one, target))
            case .failure(let refusal) where policy.drops(refusal): droppedAtRecipient.append((one, refusal))
            case .failure(let refusal): recipientRefusal = recipientRefusal ?? refusal
            }
        }
        let messageRefusal = message(
            headers, targets: targets.map(\.target), teams: policy.teams, requireDKIM: policy.requireDKIM)
        let bodyId = stamp.id(0)
        let keepsBody = envelope.message.count <= policy.mailboxMaxBytes
        let lines: [(recipient: RelayRecipient, fate: Fate)]
        let reply: SMTPReply
        // A message refusal the policy drops drops the message for every target instead.
        if let refusal = recipientRefusal ?? messageRefusal.flatMap({ policy.drops($0) ? nil : $0 }) {
            reply = refusal.reply
            lines = recipients.map { ($0, .refused(refusal)) }
        } else {
            reply = SMTPReply(250, "2.0.0", "Ok: queued as \(bodyId)")
            lines =
                droppedAtRecipient.map { ($0.recipient, .dropped($0.refusal)) }
                + targets.map { ($0.recipient, messageRefusal.map(Fate.dropped) ?? .relayed($0.target)) }
        }
        // The reply's "queued as" names the first relayed entry, else the first one.
        let named = lines.firstIndex { if case .relayed = $0.fate { true } else { false } } ?? 0
        let entries = lines.enumerated().map { position, line in
            entry(
                line.fate, for: line.recipient, envelope: envelope, headers: headers,
                id: stamp.id(position == named ? 0 : position + 1), bodyId: bodyId, keepsBody: keepsBody,
                reply: reply, stamp: stamp)
        }
        return RelayDelivery(reply: reply, bodyId: bodyId, keepsBody: keepsBody, entries: entries)
    }

    /// What becomes of one recipient of a message.
    private enum Fate {
        /// Delivered to the target's real address.
        case relayed(RelayTarget)
        /// Accepted and never delivered, the policy turning this refusal into a drop.
        case dropped(RelayRefusal)
        /// Refused (the message is refused for every recipient).
        case refused(RelayRefusal)
    }

    /// The entry of one recipient: its record, what `mail_raw` keeps, and the message to forward.
    private static func entry(
        _ fate: Fate, for recipient: RelayRecipient, envelope: SMTPEnvelope, headers: MessageHeaders, id: String,
        bodyId: String, keepsBody: Bool, reply: SMTPReply, stamp: MailStamp
    ) -> RelayDelivery.Entry {
        var record = MailRecord(
            id: id, at: stamp.now, wallTime: stamp.wallTime, direction: .inbound, outcome: .relayed,
            smtpReply: reply.description, envelopeSender: envelope.sender, recipient: recipient.address.lowercased(),
            userKey: recipient.facts?.userKey, teamId: recipient.facts?.teamId, from: headers.first("From"),
            subject: headers.subject, messageId: headers.first("Message-ID"), size: envelope.message.count,
            overTLS: envelope.overTLS, hasRaw: keepsBody, namespace: stamp.namespace)
        let received = keepsBody ? MailMessage(data: Data(), body: bodyId) : nil
        switch fate {
        case .refused(let refusal):
            record.outcome = refusal.outcome
            record.reason = refusal.reason
            return RelayDelivery.Entry(record: record, kept: received)
        case .dropped(let refusal):
            record.outcome = .dropped
            record.reason = "mailUnregisteredSenders is drop, so accepted and never delivered: " + refusal.reason
            return RelayDelivery.Entry(record: record, kept: received)
        case .relayed(let target):
            let message = RelayRewriting.deliveredRecipe(
                envelope.message, headers: headers, target: target, heloName: envelope.heloName, id: bodyId,
                bodyId: bodyId, at: stamp.now, overTLS: envelope.overTLS)
            record.userKey = target.userKey
            record.teamId = target.teamId
            record.deliveredTo = target.deliverTo
            record.rewrittenFrom = RelayRewriting.rewrittenFrom(headers, relayAddress: target.address)
            record.size = message.assembledCount(receivedCount: envelope.message.count)
            return RelayDelivery.Entry(record: record, kept: keepsBody ? message : nil, delivered: message)
        }
    }
}
