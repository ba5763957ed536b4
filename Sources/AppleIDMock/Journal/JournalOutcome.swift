/// How a journaled call or attempt ended. Stored and answered as the word it always had (`ok`,
/// Apple's error code, `dropped`, `http_503`, `no_answer`, `failed`), so the journal's JSON and its
/// `outcome` filter are unchanged; the code compares cases, never words.
enum JournalOutcome: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Answered well (a 2xx or 3xx, or a notification a receiver took).
    case ok
    /// Refused with a code: Apple's error (`invalid_grant`, …) or the mail relay's (`unauthorized_sender`, …).
    case refused(String)
    /// A fault rule dropped the connection: no answer was sent.
    case dropped
    /// An answer with this status and no code of its own (`http_404`, `http_503`).
    case http(Int)
    /// No answer came (a notification whose receiver never answered).
    case noAnswer
    /// The mock could not do it (a reply it could not send).
    case failed

    /// The outcome of an answer with `status`, refused with `code` if one was named.
    init(status: Int, refusal code: String?) {
        if let code {
            self = .refused(code)
        } else {
            self = status < 400 ? .ok : .http(status)
        }
    }

    /// The outcome of a notification attempt: `ok` for a 2xx, `http_<status>`, `dropped` (by a
    /// fault rule), or `no_answer`.
    init(notificationStatus status: Int?, dropped: Bool) {
        if let status {
            self = (200..<300).contains(status) ? .ok : .http(status)
        } else {
            self = dropped ? .dropped : .noAnswer
        }
    }

    /// Reads the stored word.
    init(word: String) {
        switch word {
        case "ok": self = .ok
        case "dropped": self = .dropped
        case "no_answer": self = .noAnswer
        case "failed": self = .failed
        default:
            if word.hasPrefix("http_"), let status = Int(word.dropFirst(5)) {
                self = .http(status)
            } else {
                self = .refused(word)
            }
        }
    }

    /// The word stored and answered.
    var description: String {
        switch self {
        case .ok: "ok"
        case .refused(let code): code
        case .dropped: "dropped"
        case .http(let status): "http_\(status)"
        case .noAnswer: "no_answer"
        case .failed: "failed"
        }
    }

    init(from decoder: any Decoder) throws {
        self.init(word: try decoder.singleValueContainer().decode(String.self))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
