import Foundation

/// Every server-to-server notification the mock produced, with its delivery attempts and outcome.
/// Delivery retries with exponential backoff, so nothing is lost while a receiver is down for a while.
public actor NotificationOutbox {
    /// Where a notification stands.
    public enum Status: String, Sendable, Codable {
        /// Waiting for its next attempt.
        case pending
        /// An attempt is under way.
        case delivering
        /// A receiver answered 2xx.
        case delivered
        /// Every attempt failed; `POST …/redeliver` tries again.
        case failed
        /// The app group registers no notification URL, so Apple would send nothing.
        case noURL = "no_url"
    }

    /// One delivery attempt (wall-clock time: delivery is real network traffic).
    public struct Attempt: Sendable, Codable {
        public var startedAt: Date
        public var durationMilliseconds: Int
        /// The HTTP status, or nil when the connection failed or timed out.
        public var httpStatus: Int?
        /// `delivered`, `http 503`, or the connection error.
        public var outcome: String
    }

    /// One notification.
    public struct Record: Sendable, Codable {
        /// The JWT's `jti`.
        public var id: String
        public var appGroupId: String
        public var url: String?
        /// The event type as sent.
        public var type: String
        public var sub: String
        /// The signed JWT, as posted in `{"payload": …}`.
        public var payload: String
        /// When it was produced, on the mock's clock.
        public var createdAt: Date
        public var status: Status
        public var attempts: [Attempt]
        /// When the next attempt is due (wall clock).
        public var nextAttemptAt: Date?
    }

    /// How retries are paced.
    public struct RetryPolicy: Sendable {
        public var maxAttempts: Int
        public var initialDelay: Double
        public var maxDelay: Double

        public init(settings: MockSettings) {
            maxAttempts = settings.notificationMaxAttempts
            initialDelay = Double(settings.notificationRetryInitialMilliseconds) / 1000
            maxDelay = Double(settings.notificationRetryMaxMilliseconds) / 1000
        }

        /// The delay after `attempts` failed attempts.
        func delay(after attempts: Int) -> Double {
            min(maxDelay, initialDelay * pow(2, Double(max(0, attempts - 1))))
        }
    }

    private var records: [String: Record] = [:]
    private var order: [String] = []

    public init() {}

    /// Adds a notification, due at once (or `no_url` when the group has no URL).
    public func enqueue(_ record: Record) {
        records[record.id] = record
        order.append(record.id)
    }

    /// Every notification, oldest first.
    public var all: [Record] { order.compactMap { records[$0] } }

    /// One notification.
    public func record(_ id: String) -> Record? { records[id] }

    /// Takes the notifications whose attempt is due, marking them `delivering`.
    func takeDue(now: Date) -> [Record] {
        var due: [Record] = []
        for id in order {
            guard var record = records[id], record.status == .pending, (record.nextAttemptAt ?? now) <= now else {
                continue
            }
            record.status = .delivering
            records[id] = record
            due.append(record)
        }
        return due
    }

    /// Records an attempt's result and schedules the next one if it failed.
    func finish(_ id: String, attempt: Attempt, policy: RetryPolicy) {
        guard var record = records[id] else { return }
        record.attempts.append(attempt)
        if attempt.outcome == "delivered" {
            record.status = .delivered
            record.nextAttemptAt = nil
        } else if record.attempts.count >= policy.maxAttempts {
            record.status = .failed
            record.nextAttemptAt = nil
        } else {
            record.status = .pending
            record.nextAttemptAt = attempt.startedAt.addingTimeInterval(
                Double(attempt.durationMilliseconds) / 1000 + policy.delay(after: record.attempts.count))
        }
        records[id] = record
    }

    /// Queues a notification for delivery again (keeping its attempt history).
    public func redeliver(_ id: String) throws(LifecycleRefusal) -> Record {
        guard var record = records[id] else {
            throw LifecycleRefusal(kind: .notFound, message: "no notification \"\(id)\"")
        }
        guard record.url != nil else {
            throw LifecycleRefusal(
                kind: .notApplicable, message: "app group \(record.appGroupId) has no notificationUrl")
        }
        guard record.status != .delivering else {
            throw LifecycleRefusal(kind: .notApplicable, message: "notification \(id) is being delivered right now")
        }
        record.status = .pending
        record.nextAttemptAt = nil
        records[id] = record
        return record
    }

    /// Forgets everything (scenario switch, reset).
    public func clear() {
        records = [:]
        order = []
    }
}
