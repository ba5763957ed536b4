import Foundation

/// One lifecycle event as it happened (or did not): from the scenario's schedule or the control plane.
public struct EventLogEntry: Sendable, Codable {
    /// A unique id (its key in the store).
    public var id: String
    /// `scheduled` (from the scenario file) or `api` (`POST /__admin/events`).
    public var source: String
    public var type: String
    public var user: String
    public var appGroupId: String?
    /// When the scenario scheduled it (absent: at start-up).
    public var scheduledAt: Date?
    /// When it fired, on the mock's clock.
    public var firedAt: Date
    /// `applied`, or why it did not apply.
    public var outcome: String
    /// The ids of the notifications it produced.
    public var notificationIds: [String]

    public init(
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
