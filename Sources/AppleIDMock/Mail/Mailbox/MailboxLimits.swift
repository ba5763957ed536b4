/// How much of the mailbox is kept: the newest relayed entries and, apart, the newest refusals
/// (so that a flood of refusals cannot flush relayed mail), and the newest messages, within the
/// setting `mailboxMaxBytes`.
enum MailboxLimits {
    /// Relayed, dropped and reply entries kept (the oldest go first).
    static let records = 1_000
    /// Refused entries kept, apart from the others (the oldest go first).
    static let refusals = 1_000
    /// Messages kept (each at most `SMTPLimits.maxMessageBytes`, all within `mailboxMaxBytes`).
    static let rawMessages = 50
}

/// What the mailbox holds of messages, oldest first, and what it dropped to stay within its
/// bounds: the mailbox summary of `GET /__admin/mail`.
struct MailboxUsage: Codable, Sendable, Equatable {
    /// One kept message: its key in `mail_body` and its size.
    struct Kept: Codable, Sendable, Equatable {
        var id: String
        var bytes: Int
    }

    /// The key of the one record.
    static let key = "usage"

    /// The messages kept, oldest first.
    var kept: [Kept] = []
    /// Messages dropped (oldest first) to stay within `mailboxMaxBytes` or the message count.
    var droppedMessages = 0
    /// Their bytes.
    var droppedBytes = 0

    /// The bytes kept.
    var keptBytes: Int { kept.reduce(0) { $0 + $1.bytes } }
}
