/// Why the relay refuses a recipient or a message: the SMTP reply the sender gets (Apple's text where
/// the field shows it, reference §16), a one-word outcome for the mailbox and the journal, and the
/// mock's own explanation for people reading the mailbox.
struct RelayRefusal: Error, Sendable, Equatable {
    /// `user_not_found`, `unauthorized_sender`, `daily_limit` or `dkim_required`.
    var outcome: String
    /// What the SMTP client is told.
    var reply: SMTPReply
    /// Why, in the mock's words.
    var reason: String

    /// `550 5.1.1 <address>: user not found`: as Apple answers for a deleted or disabled alias [F].
    static func userNotFound(_ address: String, reason: String) -> RelayRefusal {
        RelayRefusal(
            outcome: "user_not_found", reply: SMTPReply(550, "5.1.1", "<\(address)>: user not found"), reason: reason)
    }

    /// `550 5.1.1 <sender>: unauthorized sender`: as Apple answers an unregistered sender [F].
    static func unauthorizedSender(_ sender: String, reason: String) -> RelayRefusal {
        RelayRefusal(
            outcome: "unauthorized_sender", reply: SMTPReply(550, "5.1.1", "<\(sender)>: unauthorized sender"),
            reason: reason)
    }

    /// The 100-a-day limit per relay address [A]; Apple's reply text is not known, this one is the mock's.
    static func dailyLimit(_ address: String, limit: Int) -> RelayRefusal {
        RelayRefusal(
            outcome: "daily_limit",
            reply: SMTPReply(550, "5.7.1", "<\(address)>: daily limit of \(limit) messages reached"),
            reason: "\(address) already received \(limit) messages today (mock's clock, UTC)")
    }

    /// A DKIM signature of a registered domain is required (setting `mailRequireDkimSignature`);
    /// the reply text is the mock's.
    static func dkimRequired(reason: String) -> RelayRefusal {
        RelayRefusal(
            outcome: "dkim_required",
            reply: SMTPReply(550, "5.7.1", "Message must carry a DKIM signature of a registered domain"),
            reason: reason)
    }
}
