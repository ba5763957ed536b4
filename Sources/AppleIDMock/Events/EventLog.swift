import Foundation

/// One lifecycle event as it happened (or did not): from the scenario's schedule or the control plane.
public struct EventLogEntry: Sendable, Codable {
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
}

/// The scenario's pending scheduled events and the log of every event so far.
struct EventSchedule: Sendable {
    private var pending: [ScheduledEvent]
    private(set) var log: [EventLogEntry] = []

    init(scenario: Scenario) {
        pending = scenario.events
    }

    /// Whether any pending event is due at `now` (start-up events are always due).
    func hasDue(now: Date) -> Bool {
        pending.contains { ($0.at ?? .distantPast) <= now }
    }

    /// Removes and returns the due events, in schedule order.
    mutating func takeDue(now: Date) -> [ScheduledEvent] {
        let due = pending.filter { ($0.at ?? .distantPast) <= now }
            .sorted { (first: ScheduledEvent, second: ScheduledEvent) in
                (first.at ?? .distantPast) < (second.at ?? .distantPast)
            }
        pending.removeAll { ($0.at ?? .distantPast) <= now }
        return due
    }

    /// Appends an entry; returns its index.
    mutating func append(_ entry: EventLogEntry) -> Int {
        log.append(entry)
        return log.count - 1
    }

    /// Links notifications to an entry.
    mutating func attach(_ ids: [String], to index: Int) {
        guard log.indices.contains(index) else { return }
        log[index].notificationIds += ids
    }

    /// The events still to come.
    var upcoming: [ScheduledEvent] { pending }
}
