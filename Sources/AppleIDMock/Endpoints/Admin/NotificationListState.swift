/// What `GET /__admin/notifications?state=` filters by: a record's status, `retrying` (pending after
/// a failed attempt), or `settled` (the whole outbox, waiting until nothing is pending, retrying or
/// being delivered).
enum NotificationListState: Equatable, Sendable {
    case status(NotificationRecord.Status)
    case retrying
    case settled

    /// Every state, as a refusal lists them: each status, `retrying` after `pending`, then `settled`.
    static let all: [NotificationListState] =
        NotificationRecord.Status.allCases.flatMap { status in
            status == .pending ? [.status(status), .retrying] : [.status(status)]
        } + [.settled]

    /// The state as the query names it.
    var name: String {
        switch self {
        case .status(let status): status.rawValue
        case .retrying: "retrying"
        case .settled: "settled"
        }
    }

    /// The state the query names `name`, if any.
    init?(_ name: String) {
        guard let state = Self.all.first(where: { $0.name == name }) else { return nil }
        self = state
    }

    /// Whether a listing filtered by this state shows `record` (`settled` shows every record).
    func admits(_ record: NotificationRecord) -> Bool {
        switch self {
        case .status(let status): record.status == status
        case .retrying: record.status == .pending && !record.attempts.isEmpty
        case .settled: true
        }
    }
}
