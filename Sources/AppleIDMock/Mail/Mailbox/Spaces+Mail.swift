/// The mailbox's spaces: cleared with the session on a reset or switch, like the event log.
extension Spaces {
    /// Every mail attempt (relayed, refused, replies); key: the record id, in time order.
    static let mail = StoreSpace<MailRecord>("mail", onReset: .clears)
    /// The message of a record as delivered (or as sent, for refusals and replies); key: the record id.
    static let mailRaw = StoreSpace<MailMessage>("mail_raw", onReset: .clears)
    /// Messages relayed per relay address and day on the mock's clock; key `address\u{1F}yyyy-MM-dd`.
    static let mailQuota = StoreSpace<MailCount>("mail_quota", onReset: .clears)

    /// The mail spaces, for `Spaces.registered`.
    static let mailSpaces = [AnyStoreSpace(mail), AnyStoreSpace(mailRaw), AnyStoreSpace(mailQuota)]
}
