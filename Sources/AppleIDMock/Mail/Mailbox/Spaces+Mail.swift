/// The mailbox's spaces: cleared with the session on a reset or switch, like the event log.
extension Spaces {
    /// Relayed and dropped messages and replies; key: the record id, in time order.
    static let mail = StoreSpace<MailRecord>("mail", onReset: .clears, wakes: .mail, shown: "mail")
    /// Refused attempts, bounded apart from `mail`; key: the record id, in time order.
    static let mailRefused = StoreSpace<MailRecord>("mail_refused", onReset: .clears, wakes: .mail)
    /// What a record's message is made of (a reply whole; a relayed message as its own header
    /// lines over the received message of `mailBody`); key: the record id.
    static let mailRaw = StoreSpace<MailMessage>("mail_raw", onReset: .clears)
    /// Each received message, kept once whatever the number of recipients; key: the message id.
    static let mailBody = StoreSpace<MailMessage>("mail_body", onReset: .clears)
    /// The messages kept and dropped (`MailboxUsage`); one key, `usage`.
    static let mailUsage = StoreSpace<MailboxUsage>("mail_usage", onReset: .clears)
    /// Messages relayed per relay address and day on the mock's clock; key `address\u{1F}day`.
    static let mailQuota = StoreSpace<MailCount>("mail_quota", onReset: .clears)

    /// The mail spaces, for `Spaces.registered`.
    static let mailSpaces = [
        AnyStoreSpace(mail), AnyStoreSpace(mailRefused), AnyStoreSpace(mailRaw), AnyStoreSpace(mailBody),
        AnyStoreSpace(mailUsage), AnyStoreSpace(mailQuota),
    ]
}
