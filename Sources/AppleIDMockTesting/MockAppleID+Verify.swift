import AppleIDMock

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MockAppleID {
    /// What `verify` looks for in the journal: every field given must match (`user` is a user key
    /// or a `sub`; `outcome` is `ok`, `error`, or one outcome such as `invalid_grant`).
    public struct JournalMatch: Sendable, Encodable {
        public var endpoint: String?
        public var method: String?
        public var grantType: String?
        public var clientId: String?
        public var user: String?
        public var outcome: String?
        public var status: Int?
        public var fault: String?
        public var notificationType: String?
        public var notificationId: String?
        public var url: String?
        public var clientSecretKeyId: String?
        /// The trace id of the `traceparent` a request carried.
        public var traceId: String?

        public init(
            endpoint: String? = nil, method: String? = nil, grantType: String? = nil, clientId: String? = nil,
            user: String? = nil, outcome: String? = nil, status: Int? = nil, fault: String? = nil,
            notificationType: String? = nil, notificationId: String? = nil, url: String? = nil,
            clientSecretKeyId: String? = nil, traceId: String? = nil
        ) {
            self.endpoint = endpoint
            self.method = method
            self.grantType = grantType
            self.clientId = clientId
            self.user = user
            self.outcome = outcome
            self.status = status
            self.fault = fault
            self.notificationType = notificationType
            self.notificationId = notificationId
            self.url = url
            self.clientSecretKeyId = clientSecretKeyId
            self.traceId = traceId
        }
    }

    /// How many journal entries `verify` expects.
    public enum CallCount: Sendable {
        case exactly(Int)
        case atLeast(Int)
        case atMost(Int)
        case between(Int, Int)

        /// As the control plane reads it.
        var body: [String: Int] {
            switch self {
            case .exactly(let count): ["exactly": count]
            case .atLeast(let count): ["atLeast": count]
            case .atMost(let count): ["atMost": count]
            case .between(let low, let high): ["atLeast": low, "atMost": high]
            }
        }
    }

    /// What a verification found.
    public struct Verification: Sendable, Decodable {
        public var verified: Bool
        /// What was expected and what was found, in words.
        public var message: String
        /// How many entries matched (count form).
        public var count: Int?
        /// `exactly 1`, `at least 2`, … (count form).
        public var expected: String?
        /// The newest matches (count form), or the entry found for each step (sequence form).
        public var matches: [JournalEntry]
        /// The step not found after the ones before it (sequence form).
        public var failedStep: Int?
        /// The entries that came closest, and the fields in which each differed.
        public var nearMisses: [NearMiss]

        /// An entry that came close.
        public struct NearMiss: Sendable, Decodable {
            public var entry: JournalEntry
            public var differences: [Difference]
        }

        /// A field that was not as expected.
        public struct Difference: Sendable, Decodable {
            public var field: String
            public var expected: String
            public var actual: String?
        }

        /// The message, then each near miss with the fields that differed.
        public var report: String {
            var lines = [message]
            for miss in nearMisses {
                let fields = miss.differences.map {
                    "\($0.field): expected \($0.expected), was \($0.actual ?? "nothing")"
                }
                lines.append(
                    "  near miss \(miss.entry.id) (\(miss.entry.method ?? "") \(miss.entry.endpoint), \(miss.entry.outcome)): "
                        + fields.joined(separator: "; "))
            }
            return lines.joined(separator: "\n")
        }
    }

    /// Verifies that `count` journal entries match `match`, waiting up to `waitSeconds` (at most
    /// 60) for it to hold, and returns what was found; throws `MockAppleIDError.verificationFailed`
    /// with the count found and the near misses when it does not hold.
    @discardableResult
    public func verify(
        _ match: JournalMatch, count: CallCount = .atLeast(1), waitSeconds: Double = 0, since: Date? = nil
    ) async throws -> Verification {
        /// The request body.
        struct Body: Encodable {
            var match: JournalMatch
            var count: [String: Int]
            var waitSeconds: Double
            var since: Double?
        }
        return try await verify(
            Body(match: match, count: count.body, waitSeconds: waitSeconds, since: since?.timeIntervalSince1970))
    }

    /// Verifies that entries matching `steps` came one after the other (others may come between),
    /// waiting up to `waitSeconds`; throws `MockAppleIDError.verificationFailed` naming the step
    /// not found and its near misses.
    @discardableResult
    public func verifySequence(_ steps: [JournalMatch], waitSeconds: Double = 0, since: Date? = nil) async throws
        -> Verification
    {
        /// The request body.
        struct Body: Encodable {
            var sequence: [JournalMatch]
            var waitSeconds: Double
            var since: Double?
        }
        return try await verify(Body(sequence: steps, waitSeconds: waitSeconds, since: since?.timeIntervalSince1970))
    }

    private func verify(_ body: some Encodable) async throws -> Verification {
        let path = AdminPath.absolute(AdminPath.journalVerify)
        let text = String(decoding: try JSONEncoder().encode(body), as: UTF8.self)
        let answer = try await send(.post, path, body: .json(text))
        guard answer.status == 200 || answer.status == 422 else {
            throw MockAppleIDError.unexpectedAnswer(path: path, status: answer.status, body: answer.body)
        }
        let verification = try answer.decode(Verification.self)
        guard verification.verified else { throw MockAppleIDError.verificationFailed(verification.report) }
        return verification
    }

    /// The journal entries that pass the filters, once at least `minCount` do or after `waitSeconds`
    /// (at most 60), newest first, and whether the count was reached. The mock answers as soon as
    /// the entries are there: no polling.
    public func waitForJournal(
        minCount: Int = 1, waitSeconds: Double, endpoint: String? = nil, clientId: String? = nil,
        user: String? = nil, outcome: String? = nil
    ) async throws -> (entries: [JournalEntry], reached: Bool) {
        /// The answer.
        struct Listing: Decodable {
            var entries: [JournalEntry]
            var reached: Bool
        }
        var query: [(String, String)] = [("minCount", String(minCount)), ("waitSeconds", String(waitSeconds))]
        if let endpoint { query.append(("endpoint", endpoint)) }
        if let clientId { query.append(("clientId", clientId)) }
        if let user { query.append(("user", user)) }
        if let outcome { query.append(("outcome", outcome)) }
        let listing = try await call(
            .get, AdminPath.absolute(AdminPath.journal) + "?" + FormParameters.encode(query), as: Listing.self)
        return (listing.entries, listing.reached)
    }

    /// Waits up to `waitSeconds` (at most 60) until no notification is pending, retrying or being
    /// delivered, and returns the outbox; throws `MockAppleIDError.timedOut` if it did not settle.
    @discardableResult
    public func waitForNotificationsSettled(waitSeconds: Double = 10) async throws -> [ServerNotification] {
        /// The answer.
        struct Listing: Decodable {
            var notifications: [ServerNotification]
            var settled: Bool
        }
        let path = AdminPath.absolute(AdminPath.notifications) + "?state=settled&waitSeconds=\(waitSeconds)"
        let listing = try await call(.get, path, as: Listing.self)
        guard listing.settled else {
            let open = listing.notifications.filter { !Self.finalStatuses.contains($0.status) }
            throw MockAppleIDError.timedOut(
                "the outbox to settle (still open: \(open.map { "\($0.type) \($0.id): \($0.status)" }.joined(separator: "; ")))"
            )
        }
        return listing.notifications
    }
}
