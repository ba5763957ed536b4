#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One line of the mailbox: a message to a relay address (relayed or refused, with the reason), or
/// a reply the user sent through the relay. What `GET /__admin/mail` lists.
struct MailRecord: Codable, Sendable, Equatable {
    /// Sorts by wall-clock time.
    var id: String
    /// When, on the mock's clock.
    var at: Date
    /// When, on the wall clock.
    var wallTime: Date
    /// `inbound` (to a relay address) or `reply` (from the user, through the relay).
    var direction: MailDirection
    /// `relayed`, a refusal (`user_not_found`, `unauthorized_sender`, `daily_limit`,
    /// `dkim_required`), or for replies `sent` / `failed`.
    var outcome: MailOutcome
    /// Why it was refused or failed, in the mock's words.
    var reason: String?
    /// The SMTP reply the sender got (or, for a reply, the outbound server's answer).
    var smtpReply: String
    /// The envelope sender (MAIL FROM).
    var envelopeSender: String
    /// The envelope recipient: a relay address (inbound) or the original sender (reply).
    var recipient: String
    /// The scenario user and team of the relay address, when known.
    var userKey: String?
    var teamId: String?
    /// The user's real address the message was delivered to (relayed messages).
    var deliveredTo: String?
    /// The `From` header as sent, and as rewritten by the relay for the user's replies.
    var from: String?
    var rewrittenFrom: String?
    var subject: String?
    var messageId: String?
    /// The message size in bytes, when there was a message.
    var size: Int?
    /// Whether the message came over TLS.
    var overTLS: Bool
    /// Whether the raw message is kept (`GET /__admin/mail/{id}/raw`).
    var hasRaw: Bool
    /// The copy sent to `--smtp-forward`: `ok`, or what went wrong (`nil`: no forwarding).
    var forward: String?
    /// For replies: the id of the message answered.
    var inReplyTo: String?
    /// The namespace whose mailbox holds it (`nil` in records written before namespaces).
    var namespace: String?

    /// A new record id that sorts by `wallTime`.
    static func newId(at wallTime: Date) -> String {
        let micros = UInt64(max(0, wallTime.timeIntervalSince1970 * 1_000_000))
        let hex = String(micros, radix: 16)
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return String(repeating: "0", count: max(0, 14 - hex.count)) + hex + "-"
            + String(repeating: "0", count: 8 - random.count) + random
    }
}

/// A message as kept: whole (a reply), or as the relay delivered it without a copy of the
/// received message: its own header lines (`data`), then the received message of `mail_body`
/// named `body`, with the bytes `replaceStart..<replaceEnd` (the `From` field) replaced by
/// `replacement`.
struct MailMessage: Codable, Sendable, Equatable {
    /// The whole message, or the lines the relay put on top.
    var data: Data
    /// The key of the received message in `mail_body` (`nil`: `data` is the whole message).
    var body: String?
    /// The part of the received message replaced (the `From` field), and what replaces it.
    var replaceStart: Int?
    var replaceEnd: Int?
    var replacement: Data?

    init(data: Data, body: String? = nil, replacing range: Range<Int>? = nil, with replacement: [UInt8]? = nil) {
        self.data = data
        self.body = body
        self.replaceStart = range?.lowerBound
        self.replaceEnd = range?.upperBound
        self.replacement = replacement.map { Data($0) }
    }

    /// The size of the assembled message, given the size of the received one.
    func assembledCount(receivedCount: Int) -> Int {
        guard body != nil else { return data.count }
        let replaced = (replaceEnd ?? 0) - (replaceStart ?? 0)
        return data.count + receivedCount - replaced + (replacement?.count ?? 0)
    }

    /// The message, given the received one it refers to.
    func assembled(over received: Data?) -> Data? {
        guard let body else { return data }
        guard let received else { return nil }
        var out = data
        if let start = replaceStart, let end = replaceEnd, start <= end, end <= received.count {
            out += received[received.startIndex..<received.startIndex + start]
            out += replacement ?? Data()
            out += received[(received.startIndex + end)...]
        } else {
            out += received
        }
        return out
    }
}

/// How many messages went to one relay address on one day.
struct MailCount: Codable, Sendable, Equatable {
    var count: Int
}
