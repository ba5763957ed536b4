import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A rule that makes Apple misbehave on demand: which calls it matches (an endpoint, optionally a
/// grant type and a client), what it does to them (an Apple error, an HTTP status, latency, a
/// dropped connection, a truncated body), and for how many (the next N, a seeded fraction, or all
/// until cleared).
struct FaultRule: Codable, Sendable, Equatable {
    /// What a rule can match: Apple's endpoints, and the mock's outgoing notifications.
    enum Endpoint: String, Codable, Sendable, CaseIterable {
        case authorize, token, revoke, keys, usermigrationinfo, notifications
    }

    /// The rule's id (`f1`, `f2`, …), for `DELETE /__admin/faults/{id}` and the journal.
    var id: String
    var endpoint: Endpoint
    /// Matches only this `grant_type` (token endpoint).
    var grantType: String?
    /// Matches only this `client_id` (for notifications: their `aud`).
    var clientId: String?
    /// Answers this Apple error code (HTTP 400, Apple's body).
    var error: String?
    /// The `error_description` with `error`.
    var errorDescription: String?
    /// Answers this HTTP status instead (with `body`).
    var status: Int?
    /// The body sent with `status`: a string as text, anything else as JSON.
    var body: JSONValue?
    /// A `Retry-After` header with `error` or `status`.
    var retryAfterSeconds: Int?
    /// Waits this long (wall clock) before answering, or before posting a notification.
    var latencyMilliseconds: Int?
    /// Closes the connection without an answer (a notification: the attempt is not made).
    var drop = false
    /// Sends only the first half of the answer's JSON body (a notification: of the posted body).
    var truncate = false
    /// Fires on the next `times` matching calls only.
    var times: Int?
    /// Fires on this fraction of matching calls, chosen by `seed`, so a run repeats.
    var fraction: Double?
    /// The seed of `fraction`.
    var seed: Int?
    /// When it was added (mock clock).
    var createdAt: Date

    /// Whether the rule applies to a call of `endpoint` with these parameters.
    func matches(_ endpoint: Endpoint, grantType: String?, clientId: String?) -> Bool {
        endpoint == self.endpoint && (self.grantType == nil || self.grantType == grantType)
            && (self.clientId == nil || self.clientId == clientId)
    }

    /// Whether the rule fires on the matching call number `call` (0-based), having fired `fired` times.
    func fires(call: Int, fired: Int) -> Bool {
        if let times { return fired < times }
        if let fraction { return Self.unitValue(seed: seed ?? 0, call: call) < fraction }
        return true
    }

    /// Whether the rule will never fire again.
    func isSpent(fired: Int) -> Bool {
        times.map { fired >= $0 } ?? false
    }

    /// A number in [0, 1) drawn from `seed` and `call` (SHA-256), the same on every run and machine.
    static func unitValue(seed: Int, call: Int) -> Double {
        let digest = SHA256.hash(data: Data("\(seed):\(call)".utf8))
        let bits = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Double(bits >> 11) / Double(UInt64(1) << 53)
    }
}

/// How often a fault rule matched a call and fired on it.
struct FaultCounts: Codable, Sendable, Equatable {
    var matched = 0
    var fired = 0
}
