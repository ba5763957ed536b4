#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One lifecycle event as it happened (or did not): from the scenario's schedule or the control plane.
struct EventLogEntry: Sendable, Codable {
    /// A unique id (its key in the store).
    var id: String
    /// `scheduled` (from the scenario file) or `api` (`POST /__admin/events`).
    var source: String
    var type: String
    var user: String
    var appGroupId: String?
    /// When the scenario scheduled it (absent: at start-up).
    var scheduledAt: Date?
    /// When it fired, on the mock's clock.
    var firedAt: Date
    /// `applied`, or why it did not apply.
    var outcome: String
    /// The ids of the notifications it produced.
    var notificationIds: [String]

    init(
        source: String, type: String, user: String, appGroupId: String?, scheduledAt: Date?, firedAt: Date,
        outcome: String, notificationIds: [String]
    ) {
        id = UUID().uuidString.lowercased()
        self.source = source
        self.type = type
        self.user = user
        self.appGroupId = appGroupId
        self.scheduledAt = scheduledAt
        self.firedAt = firedAt
        self.outcome = outcome
        self.notificationIds = notificationIds
    }
}
