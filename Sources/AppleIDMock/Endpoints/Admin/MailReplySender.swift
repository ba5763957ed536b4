#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Sends a reply from the user to a relayed message through the outbound SMTP server, as Apple's
/// relay does: composed from the user's relay address, counted against the address's day (given
/// back when it fails), kept in the mailbox and journaled (`REPLY`).
struct MailReplySender: Sendable {
    /// Where replies are journaled.
    let journal: JournalRecorder
    /// The outbound SMTP server (`nil`: none configured).
    let server: SMTPAddress?

    /// Sends `request` in answer to `original` in the world of `state`; returns the reply's entry
    /// (outcome `sent` or `failed`).
    func send(_ request: MailReplyRequest, to original: MailRecord, in state: MockState) async throws -> MailRecord {
        guard original.direction == .inbound, original.outcome == .relayed else {
            throw ControlRefusal.notApplicable(
                "mail \(original.id) was not relayed to the user (outcome \(original.outcome.rawValue)); there is nothing to reply to"
            )
        }
        guard let server else {
            throw ControlRefusal.notApplicable(
                "no outbound SMTP server: start the server with --smtp-outbound host:port (or --smtp-forward)")
        }
        let active = try await state.current()
        let user = original.userKey.flatMap { active.world.users[$0] }
        let name = [user?.name?.firstName, user?.name?.lastName].compactMap { $0 }.joined(separator: " ")
        let started = JournalStart()
        let id = MailRecord.newId(at: started.wallTime)
        let reply = ReplyComposer.compose(
            to: original, text: request.text, subject: request.subject, userName: name.isEmpty ? nil : name, id: id,
            at: active.now)
        var record = MailRecord(
            id: id, at: active.now, wallTime: started.wallTime, direction: .reply, outcome: .sent, smtpReply: "",
            envelopeSender: reply.sender, recipient: reply.recipient, userKey: original.userKey,
            teamId: original.teamId, from: reply.sender, subject: reply.subject, messageId: reply.messageId,
            size: reply.message.count, overTLS: false, hasRaw: true, inReplyTo: original.id,
            namespace: state.scope.name)
        // The day's limit is checked and counted in one step, just before sending.
        let reservedOn: Date
        switch try await state.mail.reserveReply(from: original.recipient) {
        case .success(let day): reservedOn = day
        case .failure(let reached):
            throw ControlRefusal.limitReached(
                "\(original.recipient) reached its daily limit of \(reached.limit) messages", limit: reached.limit)
        }
        do {
            let answer = try await SMTPClient.send(
                reply.message, from: reply.sender, to: [reply.recipient], server: server)
            record.smtpReply = answer.description
        } catch {
            record.outcome = .failed
            record.reason = "\(error)"
        }
        try await state.mail.finishReply(
            record, message: reply.message, reservedFor: original.recipient, on: reservedOn)
        journal.record(
            JournalEndpoint.smtp, in: state.scope, started: started, mockTime: active.now,
            outcome: record.outcome.journalOutcome
        ) {
            $0.method = "REPLY"
            $0.userKey = original.userKey
            $0.status = record.outcome == .sent ? 250 : nil
            $0.reason = record.reason
        }
        return record
    }
}
