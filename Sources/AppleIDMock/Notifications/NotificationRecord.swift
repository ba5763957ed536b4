#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One server-to-server notification in the outbox: its claims (signed at each delivery attempt with
/// the key in force), where it goes, and every attempt so far.
struct NotificationRecord: Sendable, Codable {
    /// Whether no attempt is due or under way (delivered, failed for good, or nowhere to post).
    var isSettled: Bool { status != .pending && status != .delivering }

    /// Where a notification stands.
    enum Status: String, Sendable, Codable, CaseIterable {
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
    /// Stored with the outcome's words, and a failed connection's `DeliveryFailure` apart
    /// (`failure`; attempts stored before it read as `other`).
    struct Attempt: Sendable, Codable {
        var startedAt: Date
        var durationMilliseconds: Int
        /// The HTTP status, or nil when the connection failed or timed out.
        var httpStatus: Int?
        var outcome: DeliveryOutcome

        init(startedAt: Date, durationMilliseconds: Int, httpStatus: Int?, outcome: DeliveryOutcome) {
            self.startedAt = startedAt
            self.durationMilliseconds = durationMilliseconds
            self.httpStatus = httpStatus
            self.outcome = outcome
        }

        private enum CodingKeys: String, CodingKey {
            case startedAt, durationMilliseconds, httpStatus, outcome, failure
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            startedAt = try container.decode(Date.self, forKey: .startedAt)
            durationMilliseconds = try container.decode(Int.self, forKey: .durationMilliseconds)
            httpStatus = try container.decodeIfPresent(Int.self, forKey: .httpStatus)
            outcome = try container.decode(DeliveryOutcome.self, forKey: .outcome)
            if case .failed(let text, _) = outcome,
                let failure = try container.decodeIfPresent(DeliveryFailure.self, forKey: .failure)
            {
                outcome = .failed(text, failure)
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(startedAt, forKey: .startedAt)
            try container.encode(durationMilliseconds, forKey: .durationMilliseconds)
            try container.encodeIfPresent(httpStatus, forKey: .httpStatus)
            try container.encode(outcome, forKey: .outcome)
            if case .failed(_, let failure) = outcome { try container.encode(failure, forKey: .failure) }
        }
    }

    /// The JWT's `jti`.
    var id: String
    var appGroupId: String
    var url: String?
    /// The event type as sent.
    var type: String
    var sub: String
    /// The JWT's claims, signed when sent.
    var claims: NotificationClaims
    /// The JWS as last posted (`nil` until the first attempt).
    var payload: String?
    /// When it was produced, on the mock's clock.
    var createdAt: Date
    var status: Status
    var attempts: [Attempt]
    /// When the next attempt is due (wall clock).
    var nextAttemptAt: Date?
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
        if attempt.outcome == .delivered {
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
    struct RetryPolicy: Sendable {
        var maxAttempts: Int
        var initialDelay: Double
        var maxDelay: Double

        init(settings: MockSettings) {
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
