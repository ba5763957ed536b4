#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The filters of `GET /__admin/journal`: which entries to show, newest first.
struct JournalQuery: Sendable {
    var endpoint: String?
    var clientId: String?
    /// A user key or a `sub`.
    var user: String?
    /// `ok`, `error` (anything else), or one outcome such as `invalid_grant`.
    var outcome: String?
    /// Only entries at or after this instant on the mock's clock.
    var since: Date?
    /// At most this many entries.
    var limit = 100
    /// Every namespace's entries (`namespace=*`), not only the namespace asked.
    var everyNamespace = false

    init() {}

    /// A key every entry it admits carries (`JournalEntry.watchKeys`): its user, else its client,
    /// else its endpoint.
    var watchKey: String? { user ?? clientId ?? endpoint }

    /// Whether it filters entries at all (else every entry counts toward a waiting read).
    var filtersEntries: Bool { endpoint != nil || clientId != nil || user != nil || outcome != nil || since != nil }

    /// Whether `entry` passes every filter.
    func admits(_ entry: JournalEntry) -> Bool {
        if let endpoint, entry.endpoint != endpoint { return false }
        if let clientId, entry.clientId != clientId { return false }
        if let user, entry.userKey != user, entry.sub != user { return false }
        if let outcome {
            switch outcome {
            case "ok": if !entry.isOK { return false }
            case "error": if entry.isOK { return false }
            default: if entry.outcome.description != outcome { return false }
            }
        }
        if let since, entry.at < since { return false }
        return true
    }

    /// The entries that pass, newest first, at most `limit`.
    func select(_ entries: [JournalEntry]) -> [JournalEntry] {
        newest(matching(entries))
    }

    /// Every entry that passes.
    func matching(_ entries: [JournalEntry]) -> [JournalEntry] {
        entries.filter(admits)
    }

    /// The newest `limit` of `entries`, newest first.
    func newest(_ entries: [JournalEntry]) -> [JournalEntry] {
        Array(entries.sorted { $0.id > $1.id }.prefix(limit))
    }
}
