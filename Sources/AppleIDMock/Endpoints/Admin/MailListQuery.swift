/// What `GET /__admin/mail` asks for: the filters (`user`, `team`, `outcome`, `direction`), how
/// many entries at most (`limit`), and how long to wait for them (`waitSeconds`, `minCount`).
struct MailListQuery: Sendable {
    /// A scenario user key, relay address or real address (lowercased).
    var user: String?
    var team: String?
    /// A `MailOutcome` word.
    var outcome: String?
    var direction: MailDirection?
    /// The most entries answered.
    var limit = 200
    /// How long to wait for matches.
    var wait = WaitingRead()

    /// Reads the query string; refuses it naming each bad parameter.
    init(_ parameters: some Sequence<(key: Substring, value: Substring)>) throws {
        var reader = JSONReader()
        for (key, rawValue) in parameters {
            let value = String(rawValue)
            switch key {
            case "user": user = value.lowercased()
            case "team": team = value
            case "outcome": outcome = value
            case "direction":
                if let found = MailDirection(rawValue: value) {
                    direction = found
                } else {
                    reader.report(.query("direction"), "\"\(value)\" is not one of: inbound, reply")
                }
            case "limit":
                if let number = Int(value), (1...MailboxLimits.records).contains(number) {
                    limit = number
                } else {
                    reader.report(.query("limit"), "expected a whole number in 1...\(MailboxLimits.records)")
                }
            default:
                if wait.read(key, value, into: &reader) { continue }
                reader.report(
                    .query(String(key)),
                    "unknown filter; filters: user, team, outcome, direction, limit, waitSeconds, minCount")
            }
        }
        try reader.refuseQueryIfInvalid()
    }

    /// Whether `record` passes the filters.
    func matches(_ record: MailRecord) -> Bool {
        if let user,
            ![record.userKey?.lowercased(), record.recipient, record.deliveredTo?.lowercased()].contains(user)
        {
            return false
        }
        if let team, record.teamId != team { return false }
        if let outcome, record.outcome.rawValue != outcome { return false }
        if let direction, record.direction != direction { return false }
        return true
    }
}
