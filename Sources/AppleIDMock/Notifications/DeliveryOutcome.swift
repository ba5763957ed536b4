/// How one delivery attempt of a notification ended. Stored and answered as the words it always
/// had (`delivered`, `http 503`, `timed out after 5000 ms`, `not sent: …`, or the HTTP client's
/// error text, the kind of failure kept apart); `DeliveryOutcomeWords` says it in plain words for
/// people.
enum DeliveryOutcome: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The receiver answered 2xx.
    case delivered
    /// The receiver answered with another status.
    case http(Int)
    /// No answer within the notification timeout.
    case timedOut(milliseconds: Int)
    /// A fault rule dropped it before it was posted.
    case droppedByFault(String)
    /// The app group registers no notification URL.
    case noURL
    /// The URL is one the HTTP client cannot take (the reason).
    case unsendable(String)
    /// The notification could not be signed.
    case unsigned
    /// The connection failed: the HTTP client's error, as it described it, and what failed, told
    /// by the error's type where it was caught (not part of the words).
    case failed(String, DeliveryFailure = .other)

    /// The outcome of an answer with `status`.
    init(status: Int) {
        self = (200..<300).contains(status) ? .delivered : .http(status)
    }

    private static let timedOutPrefix = "timed out after "
    private static let droppedPrefix = "not sent: dropped by fault rule "
    private static let unsendablePrefix = "not sent: "
    private static let noURLWords = "no notificationUrl"
    private static let unsignedWords = "the notification could not be signed"

    /// Reads the stored words.
    init(words: String) {
        if words == "delivered" {
            self = .delivered
        } else if words.hasPrefix("http "), let status = Int(words.dropFirst(5)) {
            self = .http(status)
        } else if words.hasPrefix(Self.timedOutPrefix), words.hasSuffix(" ms"),
            let milliseconds = Int(words.dropFirst(Self.timedOutPrefix.count).dropLast(3))
        {
            self = .timedOut(milliseconds: milliseconds)
        } else if words.hasPrefix(Self.droppedPrefix) {
            self = .droppedByFault(String(words.dropFirst(Self.droppedPrefix.count)))
        } else if words.hasPrefix(Self.unsendablePrefix) {
            self = .unsendable(String(words.dropFirst(Self.unsendablePrefix.count)))
        } else if words == Self.noURLWords {
            self = .noURL
        } else if words == Self.unsignedWords {
            self = .unsigned
        } else {
            self = .failed(words)
        }
    }

    /// The words stored and answered.
    var description: String {
        switch self {
        case .delivered: "delivered"
        case .http(let status): "http \(status)"
        case .timedOut(let milliseconds): "\(Self.timedOutPrefix)\(milliseconds) ms"
        case .droppedByFault(let rule): Self.droppedPrefix + rule
        case .noURL: Self.noURLWords
        case .unsendable(let reason): Self.unsendablePrefix + reason
        case .unsigned: Self.unsignedWords
        case .failed(let error, _): error
        }
    }

    init(from decoder: any Decoder) throws {
        self.init(words: try decoder.singleValueContainer().decode(String.self))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
