/// What became of a mail attempt, as the mailbox and the journal name it (the raw value is the
/// word on the wire, in `GET /__admin/mail` and its `outcome` filter).
enum MailOutcome: String, Codable, Sendable, CaseIterable {
    /// Delivered to the user's real address.
    case relayed
    /// Accepted and never delivered (setting `mailUnregisteredSenders: drop`).
    case dropped
    /// Not a live relay address, or its forwarding is off.
    case userNotFound = "user_not_found"
    /// The envelope sender or the message's author is not registered, or cannot be told.
    case unauthorizedSender = "unauthorized_sender"
    /// The relay address reached its messages for the day.
    case dailyLimit = "daily_limit"
    /// No DKIM signature of a registered domain (setting `mailRequireDkimSignature`).
    case dkimRequired = "dkim_required"
    /// A reply from the user that the outbound server took.
    case sent
    /// A reply from the user that could not be sent.
    case failed

    /// Whether the attempt was refused (these are kept apart, so that refusals cannot flush
    /// relayed mail out of the mailbox).
    var isRefusal: Bool {
        switch self {
        case .userNotFound, .unauthorizedSender, .dailyLimit, .dkimRequired: true
        case .relayed, .dropped, .sent, .failed: false
        }
    }

    /// The journal's outcome: `ok` for a delivery or a sent reply, `dropped`, `failed`, or the
    /// refusal's code.
    var journalOutcome: JournalOutcome {
        switch self {
        case .relayed, .sent: .ok
        case .dropped: .dropped
        case .failed: .failed
        case .userNotFound, .unauthorizedSender, .dailyLimit, .dkimRequired: .refused(rawValue)
        }
    }
}

/// Which way a mailbox entry went.
enum MailDirection: String, Codable, Sendable, CaseIterable {
    /// To a relay address.
    case inbound
    /// From the user, through the relay, to the original sender.
    case reply
}
