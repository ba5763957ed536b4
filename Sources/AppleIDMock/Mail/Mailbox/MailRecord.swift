import Foundation

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
    var direction: String
    /// `relayed`, a refusal (`user_not_found`, `unauthorized_sender`, `daily_limit`,
    /// `dkim_required`), or for replies `sent` / `failed`.
    var outcome: String
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

    /// A new record id that sorts by `wallTime`.
    static func newId(at wallTime: Date) -> String {
        let micros = UInt64(max(0, wallTime.timeIntervalSince1970 * 1_000_000))
        let hex = String(micros, radix: 16)
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return String(repeating: "0", count: max(0, 14 - hex.count)) + hex + "-"
            + String(repeating: "0", count: 8 - random.count) + random
    }
}

/// A message kept whole, as delivered to the user (or as received, when refused after DATA).
struct MailMessage: Codable, Sendable, Equatable {
    var data: Data
}

/// How many messages went to one relay address on one day.
struct MailCount: Codable, Sendable, Equatable {
    var count: Int
}
