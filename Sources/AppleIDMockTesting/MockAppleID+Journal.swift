import AppleIDMock

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MockAppleID {
    /// One request the mock answered (or one notification attempt it made), as journaled.
    /// Secrets, tokens and codes appear only as fingerprints.
    public struct JournalEntry: Sendable, Decodable {
        public var id: String
        /// When, on the mock's clock.
        public var at: Date
        /// When, on the wall clock.
        public var wallTime: Date
        /// `authorize`, `token`, `revoke`, `keys`, `usermigrationinfo` or `notifications`.
        public var endpoint: String
        public var method: String?
        public var grantType: String?
        public var clientId: String?
        /// The key id and team of the client secret sent.
        public var clientSecretKeyId: String?
        public var clientSecretTeamId: String?
        /// The scenario user's key and the team-scoped `sub` involved.
        public var userKey: String?
        public var sub: String?
        /// The HTTP status answered (or the receiver's, for a notification).
        public var status: Int?
        /// `ok`, Apple's error code, or what went wrong.
        public var outcome: String
        /// The mock's reason for a refusal.
        public var reason: String?
        /// The id of the fault rule that fired.
        public var fault: String?
        public var latencyMilliseconds: Int
        /// For notification attempts: which notification, of what type, and where it went.
        public var notificationId: String?
        public var notificationType: String?
        public var url: String?
        /// The W3C `traceparent` the request carried, or the one the mock sent with a notification.
        public var traceparent: String?
    }

    /// The request journal, newest first, filtered as `GET /__admin/journal` filters.
    public func journal(
        endpoint: String? = nil, clientId: String? = nil, user: String? = nil, outcome: String? = nil,
        since: Date? = nil, limit: Int? = nil
    ) async throws -> [JournalEntry] {
        struct Listing: Decodable { var entries: [JournalEntry] }
        var query: [(String, String)] = []
        if let endpoint { query.append(("endpoint", endpoint)) }
        if let clientId { query.append(("clientId", clientId)) }
        if let user { query.append(("user", user)) }
        if let outcome { query.append(("outcome", outcome)) }
        if let since { query.append(("since", String(Int(since.timeIntervalSince1970.rounded(.down))))) }
        if let limit { query.append(("limit", String(limit))) }
        let path = AdminPath.absolute(AdminPath.journal) + (query.isEmpty ? "" : "?" + FormParameters.encode(query))
        return try await call(.get, path, as: Listing.self).entries
    }

    /// One server-to-server notification in the mock's outbox, with every delivery attempt.
    public struct ServerNotification: Sendable, Decodable {
        /// The JWT's `jti`.
        public var id: String
        public var appGroupId: String
        /// Where it is posted.
        public var url: String?
        /// `consent-revoked`, `account-delete`, `email-disabled` or `email-enabled`.
        public var type: String
        /// The user's team-scoped id.
        public var sub: String
        /// `pending`, `delivering`, `delivered`, `failed` or `no_url`.
        public var status: String
        public var attempts: [Attempt]

        /// One delivery attempt.
        public struct Attempt: Sendable, Decodable {
            public var startedAt: Date
            public var durationMilliseconds: Int
            /// The receiver's status, if it answered.
            public var httpStatus: Int?
            /// `delivered`, `http 503`, or the connection error.
            public var outcome: String
        }
    }

    /// The notification outbox, newest first.
    public func notifications() async throws -> [ServerNotification] {
        struct Listing: Decodable { var notifications: [ServerNotification] }
        return try await call(.get, AdminPath.absolute(AdminPath.notifications), as: Listing.self).notifications
    }

    /// The states of a notification that no more attempts will change.
    static let finalStatuses: Set<String> = ["delivered", "failed", "no_url"]

    /// Every state a notification is in.
    static let statuses: Set<String> = finalStatuses.union(["pending", "delivering"])

    /// Waits until a notification matching every given filter reaches `status` (by default
    /// `delivered`: the receiver answered 2xx), and returns it. Without `id`, the newest match
    /// counts, which may be one from earlier: `waitForDelivery(of:)` waits for a trigger's own.
    /// Throws `MockAppleIDError.timedOut` after `timeout` (wall clock), or as soon as every match
    /// has ended in another final state (`failed`, `no_url`), naming what it saw. Between reads it
    /// sleeps on the mock until one more notification reaches `status`; for at most a second at a
    /// time while the one with `id` may still end in another final state, or when `status` is not
    /// final (`pending`, `delivering`: others leave it, so the count need not rise).
    public func waitForNotification(
        id: String? = nil, type: LifecycleEvent? = nil, sub: String? = nil, status: String = "delivered",
        timeout: Duration = .seconds(10)
    ) async throws -> ServerNotification {
        guard Self.statuses.contains(status) else {
            throw MockAppleIDError.invalidArgument(
                "status \"\(status)\" is none of \(Self.statuses.sorted().joined(separator: ", "))")
        }
        let deadline = ContinuousClock.now + timeout
        var seen: [ServerNotification] = []
        func summary() -> String {
            let last = seen.map { "\($0.type) \($0.id): \($0.status), \($0.attempts.count) attempt(s)" }
            return "a notification \(status) (matching: \(last.isEmpty ? "none" : last.joined(separator: "; ")))"
        }
        // A wait for one more in `status` than now ends early only while the count can only rise:
        // in a final status. A failure is no change of the count waited for, and a notification
        // leaving `pending` or `delivering` as the awaited one enters it leaves the count as it was:
        // either is seen within a second, not at the deadline.
        let final = Self.finalStatuses.contains(status)
        let longest = id != nil || !final ? .seconds(1) : Self.longestWait
        while true {
            let outbox = try await notifications()
            seen = outbox.filter {
                (id == nil || $0.id == id) && (type == nil || $0.type == type?.rawValue)
                    && (sub == nil || $0.sub == sub)
            }
            if let match = seen.first(where: { $0.status == status }) { return match }
            if id != nil, let ended = seen.first, Self.finalStatuses.contains(ended.status) {
                throw MockAppleIDError.timedOut(summary() + ": it ended \(ended.status)")
            }
            guard let seconds = Self.waitSeconds(until: deadline, atMost: longest) else { break }
            // Until one more notification than now is in `status`: the awaited one, or another.
            let query = [
                ("state", status), ("minCount", String(outbox.count { $0.status == status } + 1)),
                ("waitSeconds", seconds),
            ]
            try await succeeding(.get, AdminPath.absolute(AdminPath.notifications) + "?" + FormParameters.encode(query))
        }
        throw MockAppleIDError.timedOut(summary())
    }

    /// Waits until every notification `fired` queued is delivered (its receiver answered 2xx), and
    /// returns them; throws as `waitForNotification` does.
    public func waitForDelivery(of fired: FiredEvent, timeout: Duration = .seconds(10)) async throws
        -> [ServerNotification]
    {
        var delivered: [ServerNotification] = []
        for id in fired.notificationIds {
            delivered.append(try await waitForNotification(id: id, timeout: timeout))
        }
        return delivered
    }
}
