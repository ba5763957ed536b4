import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Connects the SMTP dialogue to the relay's rules and the mailbox: decides on recipients and
/// messages in store steps, journals each attempt (endpoint `smtp`), and copies relayed messages
/// to `--smtp-forward`.
struct MailDesk: Sendable {
    /// Every namespace's world: a recipient's relay address names the namespace whose mailbox and
    /// rules apply (`Namespaces.state(forRelayAddress:)`).
    let namespaces: Namespaces
    /// Where attempts are journaled.
    let journal: JournalRecorder
    /// Where relayed messages are copied (`--smtp-forward`; `nil`: nowhere).
    let forwardServer: SMTPAddress?
    let logger: Logger

    /// The desk of a server's services.
    init(services: MockServices) {
        namespaces = services.namespaces
        journal = services.journal
        forwardServer = services.mail.configuration.forward
        logger = services.logger
    }

    /// The refusal for a recipient, or `nil` when it is accepted.
    func checkRecipient(_ address: String, sender: String, overTLS: Bool) async -> SMTPReply? {
        let started = JournalStart()
        do {
            let steps = try await namespaces.state(forRelayAddress: address).mail
            let decision = try await steps.checkRecipient(
                address, sender: sender, overTLS: overTLS, wallTime: started.wallTime)
            switch decision.result {
            case .success(let target):
                journal(
                    "RCPT", in: steps, now: decision.now, started: started, userKey: target.userKey, status: 250,
                    outcome: .ok, reason: nil)
                return nil
            case .failure(let refusal):
                journal(
                    "RCPT", in: steps, now: decision.now, started: started, userKey: decision.record?.userKey,
                    status: refusal.reply.code, outcome: refusal.outcome.journalOutcome, reason: refusal.reason)
                return refusal.reply
            }
        } catch {
            return unavailable(error)
        }
    }

    /// The answer to a message after DATA; relayed copies then go to `--smtp-forward`. Recipients
    /// of several namespaces are delivered in each one's world; the answer is the first refusal,
    /// if any.
    func deliver(_ envelope: SMTPEnvelope) async -> (reply: SMTPReply, forward: @Sendable () async -> Void) {
        let started = JournalStart()
        do {
            var groups: [(steps: MailSteps, recipients: [String])] = []
            for recipient in envelope.recipients {
                let state = try await namespaces.state(forRelayAddress: recipient)
                if let index = groups.firstIndex(where: { $0.steps.state === state }) {
                    groups[index].recipients.append(recipient)
                } else {
                    groups.append((state.mail, [recipient]))
                }
            }
            if groups.isEmpty { groups = [(namespaces.defaultState.mail, [])] }
            var reply: SMTPReply?
            var delivered: [(record: MailRecord, message: MailMessage)] = []
            var outcomes: [String] = []
            for (steps, recipients) in groups {
                var part = envelope
                part.recipients = recipients
                let decision = try await steps.deliver(part, wallTime: started.wallTime)
                for record in decision.records {
                    journal(
                        "DATA", in: steps, now: decision.now, started: started, userKey: record.userKey,
                        status: decision.reply.code, outcome: record.outcome.journalOutcome, reason: record.reason)
                }
                if reply == nil || (reply?.code == 250 && decision.reply.code != 250) { reply = decision.reply }
                delivered += decision.delivered
                outcomes.append(decision.records.first?.outcome.rawValue ?? "none")
            }
            logger.info(
                "relay mail",
                metadata: [
                    "idp.outcome": .string(outcomes.joined(separator: ",")),
                    "idp.recipients": .stringConvertible(envelope.recipients.count),
                ])
            let received = envelope.message
            let answer = reply ?? SMTPReply(554, "5.5.1", "Error: no valid recipients")
            return (answer, { [delivered] in await forward(delivered, received: received) })
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
            // Not `state(for:)`: a namespace deleted meanwhile would be made again.
            let steps = (try? await namespaces.existingState(record.namespace ?? NamespaceName.default))??.mail
            _ = try? await steps?.update(record.id) { $0.forward = outcome }
        }
    }

    /// A store outage: a temporary refusal, so that the sender tries again.
    private func unavailable(_ error: any Error) -> SMTPReply {
        logger.warning("relay: state store unavailable", metadata: ["error": "\(error)"])
        return SMTPReply(451, "4.3.0", "Error: local error in processing, try again later")
    }

    private func journal(
        _ method: String, in steps: MailSteps, now: Date, started: JournalStart, userKey: String?, status: Int,
        outcome: JournalOutcome, reason: String?
    ) {
        journal.record(JournalEndpoint.smtp, in: steps.state.scope, started: started, mockTime: now, outcome: outcome) {
            $0.method = method
            $0.userKey = userKey
            $0.status = status
            $0.reason = reason
        }
    }
}
