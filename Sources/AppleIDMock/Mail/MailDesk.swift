import Foundation
import Logging

/// Connects the SMTP dialogue to the relay's rules and the mailbox: decides on recipients and
/// messages in store steps, journals each attempt (endpoint `smtp`), and copies relayed messages
/// to `--smtp-forward`.
struct MailDesk: Sendable {
    /// The relay's steps on the state.
    let steps: MailSteps
    /// Where attempts are journaled.
    let journal: JournalRecorder
    /// Where relayed messages are copied (`--smtp-forward`; `nil`: nowhere).
    let forwardServer: SMTPAddress?
    let logger: Logger

    init(steps: MailSteps, journal: JournalRecorder, forwardServer: SMTPAddress?, logger: Logger) {
        self.steps = steps
        self.journal = journal
        self.forwardServer = forwardServer
        self.logger = logger
    }

    /// The desk of a server's services.
    init(services: MockServices) {
        self.init(
            steps: services.state.mail, journal: services.journal,
            forwardServer: services.mail.configuration.forward, logger: services.logger)
    }

    /// The refusal for a recipient, or `nil` when it is accepted.
    func checkRecipient(_ address: String, sender: String, overTLS: Bool) async -> SMTPReply? {
        let started = JournalStart()
        do {
            let decision = try await steps.checkRecipient(
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
                    status: refusal.reply.code, outcome: refusal.outcome.journalOutcome, reason: refusal.reason)
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
            let decision = try await steps.deliver(envelope, wallTime: started.wallTime)
            for record in decision.records {
                journal(
                    "DATA", now: decision.now, started: started, userKey: record.userKey, status: decision.reply.code,
                    outcome: record.outcome.journalOutcome, reason: record.reason)
            }
            logger.info(
                "relay mail",
                metadata: [
                    "idp.outcome": .string(decision.records.first?.outcome.rawValue ?? "none"),
                    "idp.recipients": .stringConvertible(envelope.recipients.count),
                ])
            let delivered = decision.delivered
            let received = envelope.message
            return (decision.reply, { await forward(delivered, received: received) })
        } catch {
            return (unavailable(error), {})
        }
    }

    /// Sends each relayed message, as delivered, to the forward server, one at a time, and notes
    /// the outcome.
    private func forward(_ delivered: [(record: MailRecord, message: MailMessage)], received: [UInt8]) async {
        guard let server = forwardServer else { return }
        let original = Data(received)
        for (record, recipe) in delivered {
            guard let message = recipe.assembled(over: original) else { continue }
            let outcome: String
            do {
                _ = try await SMTPClient.send(
                    Array(message), from: record.envelopeSender, to: [record.deliveredTo ?? record.recipient],
                    server: server)
                outcome = "ok"
            } catch {
                outcome = "\(error)"
                logger.notice(
                    "relay forward failed", metadata: ["idp.mail": .string(record.id), "error": .string(outcome)])
            }
            _ = try? await steps.update(record.id) { $0.forward = outcome }
        }
    }

    /// A store outage: a temporary refusal, so that the sender tries again.
    private func unavailable(_ error: any Error) -> SMTPReply {
        logger.warning("relay: state store unavailable", metadata: ["error": "\(error)"])
        return SMTPReply(451, "4.3.0", "Error: local error in processing, try again later")
    }

    private func journal(
        _ method: String, now: Date, started: JournalStart, userKey: String?, status: Int, outcome: JournalOutcome,
        reason: String?
    ) {
        journal.record(JournalEndpoint.smtp, in: steps.state.scope, started: started, mockTime: now, outcome: outcome) {
            $0.method = method
            $0.userKey = userKey
            $0.status = status
            $0.reason = reason
        }
    }
}
