/// How much of the mailbox is kept: the newest records and the newest raw messages.
enum MailboxLimits {
    /// Records kept (the oldest go first).
    static let records = 1_000
    /// Raw messages kept (each at most `SMTPLimits.maxMessageBytes`).
    static let rawMessages = 50
}
