#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One line of the request journal: an `/auth/*` request the mock answered, or a notification
/// attempt it made. Secrets, tokens and codes appear only as fingerprints.
struct JournalEntry: Codable, Sendable, Equatable {
    /// Sorts by wall-clock time across replicas.
    var id: String
    /// When, on the mock's clock.
    var at: Date
    /// When, on the wall clock.
    var wallTime: Date
    /// The namespace whose world answered or sent it (`nil` in entries written before namespaces).
    var namespace: String?
    /// `authorize`, `token`, `revoke`, `keys`, `usermigrationinfo`, or `notifications`.
    var endpoint: String
    /// The HTTP method (requests only).
    var method: String?
    var grantType: String?
    /// The client: `client_id` of a request, the `aud` of a notification.
    var clientId: String?
    /// The `kid` of the client secret's header.
    var clientSecretKeyId: String?
    /// The team that owns that key.
    var clientSecretTeamId: String?
    /// The scenario's user the call was about, when the mock could tell.
    var userKey: String?
    var sub: String?
    /// The HTTP status answered (requests) or received (notifications; `nil` if none came).
    var status: Int?
    /// `ok`, Apple's error code (`invalid_grant`, …), or what went wrong (`dropped`, `http_503`, …).
    var outcome: JournalOutcome
    /// The mock's reason for an error outcome.
    var reason: String?
    /// The fault rule that fired on the call.
    var fault: String?
    /// How long the answer (or the attempt) took, in milliseconds.
    var latencyMilliseconds: Int
    /// Fingerprints of the secrets, tokens and codes the call carried, by parameter name.
    var fingerprints: [String: String]?
    /// Fingerprints of the tokens and codes the answer handed out, by name.
    var issued: [String: String]?
    /// The notification's id (`jti`), event type and attempt number.
    var notificationId: String?
    var notificationType: String?
    var attempt: Int?
    /// Where a notification was posted.
    var url: String?
    /// The W3C `traceparent` the request carried (when well formed), or the one the mock sent with
    /// a notification.
    var traceparent: String? = nil

    /// Whether the call ended well.
    var isOK: Bool { outcome == .ok }
}

extension JournalEntry: WatchedValue {
    /// Its user key, `sub`, client and endpoint: what a waiting journal read may be keyed by
    /// (`JournalQuery.watchKey`).
    var watchKeys: [String] {
        var keys: [String] = []
        for key in [userKey, sub, clientId, endpoint] {
            if let key, !keys.contains(key) { keys.append(key) }
        }
        return keys
    }
}
