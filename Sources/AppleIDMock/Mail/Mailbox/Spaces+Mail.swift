/// The mailbox's spaces: cleared with the session on a reset or switch, like the event log.
extension Spaces {
    /// Every mail attempt (relayed, refused, replies); key: the record id, in time order.
    static let mail = StoreSpace<MailRecord>("mail")
    /// The message of a record as delivered (or as sent, for refusals and replies); key: the record id.
    static let mailRaw = StoreSpace<MailMessage>("mail_raw")
    /// Messages relayed per relay address and day on the mock's clock; key `address\u{1F}yyyy-MM-dd`.
    static let mailQuota = StoreSpace<MailCount>("mail_quota")

    /// The names of the mail spaces.
    static let mailSpaces = [mail.name, mailRaw.name, mailQuota.name]

    /// Their codings, for `Spaces.all`.
    static let mailSpaceCodings = [AnyStoreSpace(mail), AnyStoreSpace(mailRaw), AnyStoreSpace(mailQuota)]
}
