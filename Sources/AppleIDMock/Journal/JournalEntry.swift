import Foundation

/// One line of the request journal: an `/auth/*` request the mock answered, or a notification
/// attempt it made. Secrets, tokens and codes appear only as fingerprints.
public struct JournalEntry: Codable, Sendable, Equatable {
    /// Sorts by wall-clock time across replicas.
    public var id: String
    /// When, on the mock's clock.
    public var at: Date
    /// When, on the wall clock.
    public var wallTime: Date
    /// `authorize`, `token`, `revoke`, `keys`, `usermigrationinfo`, or `notifications`.
    public var endpoint: String
    /// The HTTP method (requests only).
    public var method: String?
    public var grantType: String?
    /// The client: `client_id` of a request, the `aud` of a notification.
    public var clientId: String?
    /// The `kid` of the client secret's header.
    public var clientSecretKeyId: String?
    /// The team that owns that key.
    public var clientSecretTeamId: String?
    /// The scenario's user the call was about, when the mock could tell.
    public var userKey: String?
    public var sub: String?
    /// The HTTP status answered (requests) or received (notifications; `nil` if none came).
    public var status: Int?
    /// `ok`, Apple's error code (`invalid_grant`, …), or what went wrong (`dropped`, `http_503`, `timeout`, …).
    public var outcome: String
    /// The mock's reason for an error outcome.
    public var reason: String?
    /// The fault rule that fired on the call.
    public var fault: String?
    /// How long the answer (or the attempt) took, in milliseconds.
    public var latencyMilliseconds: Int
    /// Fingerprints of the secrets, tokens and codes the call carried, by parameter name.
    public var fingerprints: [String: String]?
    /// Fingerprints of the tokens and codes the answer handed out, by name.
    public var issued: [String: String]?
    /// The notification's id (`jti`), event type and attempt number.
    public var notificationId: String?
    public var notificationType: String?
    public var attempt: Int?
    /// Where a notification was posted.
    public var url: String?

    /// Whether the call ended well.
    public var isOK: Bool { outcome == "ok" }

    /// The outcome of a notification attempt: `ok` for a 2xx, `http_<status>`, `dropped` (by a
    /// fault rule), or `no_answer`.
    static func notificationOutcome(status: Int?, dropped: Bool) -> String {
        status.map { (200..<300).contains($0) ? "ok" : "http_\($0)" } ?? (dropped ? "dropped" : "no_answer")
    }
}
