#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a verification looks for in the journal (`POST /__admin/journal/verify`): a value per
/// field, every one of which an entry must have. Compared field by field, so that an entry that
/// misses tells which fields differed (a near miss).
struct JournalMatch: Sendable, Equatable {
    /// The fields a match may name.
    enum Field: String, Sendable, CaseIterable, Encodable {
        case endpoint, method, grantType, clientId, user, outcome, status, fault, notificationType, notificationId,
            url, clientSecretKeyId, traceId
    }

    /// One field an entry does not have as asked.
    struct Difference: Sendable, Equatable, Encodable {
        var field: Field
        var expected: String
        /// What the entry has (`nil`: nothing).
        var actual: String?
    }

    /// The fields asked for, in the order of `Field.allCases`.
    var expected: [(field: Field, value: String)] = []

    static func == (lhs: JournalMatch, rhs: JournalMatch) -> Bool {
        lhs.expected.map(\.field) == rhs.expected.map(\.field) && lhs.expected.map(\.value) == rhs.expected.map(\.value)
    }

    /// The fields of `entry` that are not as asked (none: the entry matches).
    func differences(_ entry: JournalEntry) -> [Difference] {
        expected.compactMap { field, value in
            Self.holds(field, value, in: entry)
                ? nil : Difference(field: field, expected: value, actual: Self.actual(field, in: entry))
        }
    }

    /// Whether `entry` has every field as asked.
    func admits(_ entry: JournalEntry) -> Bool {
        expected.allSatisfy { Self.holds($0.field, $0.value, in: entry) }
    }

    private static func holds(_ field: Field, _ value: String, in entry: JournalEntry) -> Bool {
        switch field {
        case .user: return entry.userKey == value || entry.sub == value
        case .outcome:
            switch value {
            case "ok": return entry.isOK
            case "error": return !entry.isOK
            default: return entry.outcome == JournalOutcome(word: value)
            }
        case .method: return entry.method?.uppercased() == value.uppercased()
        default: return actual(field, in: entry) == value
        }
    }

    /// What `entry` has in `field`, as text.
    static func actual(_ field: Field, in entry: JournalEntry) -> String? {
        switch field {
        case .endpoint: entry.endpoint
        case .method: entry.method
        case .grantType: entry.grantType
        case .clientId: entry.clientId
        case .user: entry.userKey ?? entry.sub
        case .outcome: entry.outcome.description
        case .status: entry.status.map(String.init)
        case .fault: entry.fault
        case .notificationType: entry.notificationType
        case .notificationId: entry.notificationId
        case .url: entry.url
        case .clientSecretKeyId: entry.clientSecretKeyId
        case .traceId: entry.traceparent.flatMap(TraceContext.traceId(of:))
        }
    }
}

/// How many entries a verification expects: `exactly`, or `atLeast` and/or `atMost`.
struct CountExpectation: Sendable, Equatable {
    var atLeast: Int?
    var atMost: Int?

    /// At least one (the default).
    static let atLeastOne = CountExpectation(atLeast: 1)

    /// Exactly `count`.
    static func exactly(_ count: Int) -> CountExpectation { CountExpectation(atLeast: count, atMost: count) }

    /// Whether `count` entries satisfy it.
    func holds(_ count: Int) -> Bool {
        (atLeast.map { count >= $0 } ?? true) && (atMost.map { count <= $0 } ?? true)
    }

    /// `entry` after a count of one, else `entries`.
    var noun: String { (atMost ?? atLeast) == 1 ? "entry" : "entries" }

    /// In words: `exactly 1`, `at least 2`, `at most 0`, `between 1 and 3`.
    var description: String {
        switch (atLeast, atMost) {
        case (let low?, let high?) where low == high: "exactly \(low)"
        case (let low?, let high?): "between \(low) and \(high)"
        case (let low?, nil): "at least \(low)"
        case (nil, let high?): "at most \(high)"
        case (nil, nil): "any number of"
        }
    }
}
