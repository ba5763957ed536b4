/// What the relay decided about a message after DATA (`RelayRules.decide`): the reply, whether the
/// received message is kept, and each recipient's mailbox entry with what to write and forward.
/// The store step writes it as it is.
struct RelayDelivery: Sendable, Equatable {
    /// One recipient's mailbox entry and what goes with it.
    struct Entry: Sendable, Equatable {
        /// The mailbox line.
        var record: MailRecord
        /// What `mail_raw` keeps for it (`nil`: no message kept).
        var kept: MailMessage?
        /// The message as delivered, to forward (relayed entries only).
        var delivered: MailMessage?

        /// Whether it counts against the relay address's day: it was relayed.
        var counts: Bool { record.outcome == .relayed }
    }

    /// What the SMTP client is told.
    var reply: SMTPReply
    /// The key the received message is kept under once (`mail_body`).
    var bodyId: String
    /// Whether the received message is kept: it fits in `mailboxMaxBytes` on its own.
    var keepsBody: Bool
    /// The entries, in the order they are written and journaled.
    var entries: [Entry]
}
