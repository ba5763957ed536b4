import Foundation

/// One server-to-server notification in the outbox: its claims (signed at each delivery attempt with
/// the key in force), where it goes, and every attempt so far.
public struct NotificationRecord: Sendable, Codable {
    /// Where a notification stands.
    public enum Status: String, Sendable, Codable {
        /// Waiting for its next attempt.
        case pending
        /// An attempt is under way (by the replica holding the lease).
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

    /// The JWT's `jti`.
    public var id: String
    public var appGroupId: String
    public var url: String?
    /// The event type as sent.
    public var type: String
    public var sub: String
    /// The JWT's claims, signed when sent.
    var claims: NotificationClaims
    /// The JWS as last posted (`nil` until the first attempt).
    public var payload: String?
    /// When it was produced, on the mock's clock.
    public var createdAt: Date
    public var status: Status
    public var attempts: [Attempt]
    /// When the next attempt is due (wall clock).
    public var nextAttemptAt: Date?
    /// The claim of the delivery under way: only its holder records the outcome.
    var lease: String?
    /// The epoch it was produced in.
    var epoch: Int

    /// The store index: due for delivery while pending (or while its lease runs).
    var index: EntryIndex {
        EntryIndex(dueAt: status == .pending ? (nextAttemptAt ?? .distantPast) : nil)
    }

    /// Records an attempt's result and schedules the next one if it failed.
    mutating func finish(_ attempt: Attempt, payload: String?, policy: RetryPolicy) {
        attempts.append(attempt)
        self.payload = payload ?? self.payload
        lease = nil
        if attempt.outcome == "delivered" {
            status = .delivered
            nextAttemptAt = nil
        } else if attempts.count >= policy.maxAttempts {
            status = .failed
            nextAttemptAt = nil
        } else {
            status = .pending
            nextAttemptAt = attempt.startedAt.addingTimeInterval(
                Double(attempt.durationMilliseconds) / 1000 + policy.delay(after: attempts.count))
        }
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
}
