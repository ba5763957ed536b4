/// Why the relay refuses a recipient or a message: the SMTP reply the sender gets (Apple's text where
/// the field shows it, reference §16), a one-word outcome for the mailbox and the journal, and the
/// mock's own explanation for people reading the mailbox.
struct RelayRefusal: Error, Sendable, Equatable {
    /// `user_not_found`, `unauthorized_sender`, `daily_limit` or `dkim_required`.
    var outcome: MailOutcome
    /// What the SMTP client is told.
    var reply: SMTPReply
    /// Why, in the mock's words.
    var reason: String

    /// `550 5.1.1 <address>: user not found`: as Apple answers for a deleted or disabled alias [F].
    static func userNotFound(_ address: String, reason: String) -> RelayRefusal {
        RelayRefusal(
            outcome: .userNotFound, reply: SMTPReply(550, "5.1.1", "<\(SMTPReply.quoted(address))>: user not found"),
            reason: reason)
    }

    /// `550 5.1.1 <sender>: unauthorized sender`: as Apple answers an unregistered sender [F].
    static func unauthorizedSender(_ sender: String, reason: String) -> RelayRefusal {
        RelayRefusal(
            outcome: .unauthorizedSender,
            reply: SMTPReply(550, "5.1.1", "<\(SMTPReply.quoted(sender))>: unauthorized sender"),
            reason: reason)
    }

    /// The 100-a-day limit per relay address [A]; Apple's reply text is not known, this one is the mock's.
    static func dailyLimit(_ address: String, limit: Int) -> RelayRefusal {
        RelayRefusal(
            outcome: .dailyLimit,
            reply: SMTPReply(550, "5.7.1", "<\(SMTPReply.quoted(address))>: daily limit of \(limit) messages reached"),
            reason: "\(address) already received \(limit) messages today (mock's clock, UTC)")
    }

    /// A DKIM signature of a registered domain is required (setting `mailRequireDkimSignature`);
    /// the reply text is the mock's.
    static func dkimRequired(reason: String) -> RelayRefusal {
        RelayRefusal(
            outcome: .dkimRequired,
            reply: SMTPReply(550, "5.7.1", "Message must carry a DKIM signature of a registered domain"),
            reason: reason)
    }

    /// The message's author cannot be told (no `From`, two of them, an unreadable one, several
    /// authors without `Sender`): refused as an unauthorized sender, the reason saying which.
    static func unreadableAuthor(reason: String) -> RelayRefusal {
        RelayRefusal(
            outcome: .unauthorizedSender,
            reply: SMTPReply(550, "5.7.1", "Message From header does not name one sender: unauthorized sender"),
            reason: reason)
    }
}
