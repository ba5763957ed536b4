import Foundation
import Logging

/// Connects the SMTP dialogue to the relay's rules and the mailbox: decides on recipients and
/// messages in store steps, journals each attempt (endpoint `smtp`), and copies relayed messages
/// to `--smtp-forward`.
struct MailDesk: Sendable {
    let services: MockServices

    /// The refusal for a recipient, or `nil` when it is accepted.
    func checkRecipient(_ address: String, sender: String, overTLS: Bool) async -> SMTPReply? {
        let started = JournalStart()
        do {
            let decision = try await services.state.checkRecipient(
                address, sender: sender, overTLS: overTLS, wallTime: started.wallTime)
            switch decision.result {
            case .success(let target):
                journal(
                    "RCPT", now: decision.now, started: started, userKey: target.userKey, status: 250, outcome: .ok,
                    reason: nil)
                return nil
            case .failure(let refusal):
                journal(
                    "RCPT", now: decision.now, started: started, userKey: decision.record?.userKey,
                    status: refusal.reply.code, outcome: .refused(refusal.outcome), reason: refusal.reason)
                return refusal.reply
            }
        } catch {
            return unavailable(error)
        }
    }

    /// The answer to a message after DATA; relayed copies then go to `--smtp-forward`.
    func deliver(_ envelope: SMTPEnvelope) async -> (reply: SMTPReply, forward: @Sendable () async -> Void) {
        let started = JournalStart()
        do {
            let decision = try await services.state.deliver(envelope, wallTime: started.wallTime)
            for record in decision.records {
                journal(
                    "DATA", now: decision.now, started: started, userKey: record.userKey, status: decision.reply.code,
                    outcome: record.outcome == "relayed" ? .ok : .refused(record.outcome), reason: record.reason)
            }
            services.logger.info(
                "relay mail",
                metadata: [
                    "idp.outcome": .string(decision.records.first?.outcome ?? "none"),
                    "idp.recipients": .stringConvertible(envelope.recipients.count),
                ])
            let delivered = decision.delivered
            return (decision.reply, { await forward(delivered) })
        } catch {
            return (unavailable(error), {})
        }
    }

    /// Sends each relayed message, as delivered, to the forward server, and notes the outcome.
    private func forward(_ delivered: [(record: MailRecord, message: [UInt8])]) async {
        guard let server = services.mail.configuration.forward else { return }
        for (record, message) in delivered {
            let outcome: String
            do {
                _ = try await SMTPClient.send(
                    message, from: record.envelopeSender, to: [record.deliveredTo ?? record.recipient], server: server)
                outcome = "ok"
            } catch {
                outcome = "\(error)"
                services.logger.notice(
                    "relay forward failed", metadata: ["idp.mail": .string(record.id), "error": .string(outcome)])
            }
            _ = try? await services.state.updateMail(record.id) { $0.forward = outcome }
        }
    }

    /// A store outage: a temporary refusal, so that the sender tries again.
    private func unavailable(_ error: any Error) -> SMTPReply {
        services.logger.warning("relay: state store unavailable", metadata: ["error": "\(error)"])
        return SMTPReply(451, "4.3.0", "Error: local error in processing, try again later")
    }

    private func journal(
        _ method: String, now: Date, started: JournalStart, userKey: String?, status: Int, outcome: JournalOutcome,
        reason: String?
    ) {
        services.journal.record(JournalEndpoint.smtp, started: started, mockTime: now, outcome: outcome) {
            $0.method = method
            $0.userKey = userKey
            $0.status = status
            $0.reason = reason
        }
    }
}
