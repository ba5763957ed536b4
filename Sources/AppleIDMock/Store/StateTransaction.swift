#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How an entry is filed besides its value: when it dies on the mock's clock, when work on it is
/// due on the wall clock, and the group it dies with (the consent a grant came from).
struct EntryIndex: Sendable, Equatable {
    /// The sweep deletes the entry once the mock's clock passes this.
    var expiresAt: Date?
    /// The entry is due for work (a notification to deliver) from this wall-clock instant.
    var dueAt: Date?
    /// `deleteGroup` deletes every entry of this group at once.
    var group: String?

    init(expiresAt: Date? = nil, dueAt: Date? = nil, group: String? = nil) {
        self.expiresAt = expiresAt
        self.dueAt = dueAt
        self.group = group
    }
}

/// One atomic step on a store: reads see the step's own writes, and nothing is written unless the
/// whole step succeeds. A store may run the step again after a conflict with another replica, so a
/// step has no effect outside the store.
protocol StateTransaction: AnyObject {
    /// The value at `key`, if any.
    func get<Value>(_ space: StoreSpace<Value>, _ key: String) async throws -> Value?
    /// Writes `value` at `key` with its index (replacing any value there).
    func put<Value>(_ space: StoreSpace<Value>, _ key: String, _ value: Value, index: EntryIndex) async throws
    /// Writes many unindexed values, in order.
    func putAll<Value>(_ space: StoreSpace<Value>, _ entries: [(key: String, value: Value)]) async throws
    /// Deletes the entry at `key`, if any.
    func delete<Value>(_ space: StoreSpace<Value>, _ key: String) async throws
    /// The entries whose key starts with `prefix`, in insertion order (oldest first).
    func list<Value>(_ space: StoreSpace<Value>, prefix: String) async throws -> [(key: String, value: Value)]
    /// Deletes every entry of the spaces named that belongs to `group`.
    func deleteGroup(_ group: String, in spaces: [String]) async throws
    /// Deletes every entry of the spaces named.
    func clear(_ spaces: [String]) async throws
    /// Deletes the oldest entries of `space` beyond the newest `keep`, among those not due for work
    /// (a notification still to deliver is never pruned).
    func prune<Value>(_ space: StoreSpace<Value>, keep: Int) async throws
}

extension StateTransaction {
    /// Writes many unindexed values, in order (a store may do it in one statement).
    func putAll<Value>(_ space: StoreSpace<Value>, _ entries: [(key: String, value: Value)]) async throws {
        for entry in entries { try await put(space, entry.key, entry.value) }
    }

    /// Writes `value` without index.
    func put<Value>(_ space: StoreSpace<Value>, _ key: String, _ value: Value) async throws {
        try await put(space, key, value, index: EntryIndex())
    }

    /// How many entries `space` holds (a store may count without reading them).
    func count<Value>(_ space: StoreSpace<Value>) async throws -> Int {
        try await list(space, prefix: "").count
    }

    /// Every entry of `space`, oldest first.
    func list<Value>(_ space: StoreSpace<Value>) async throws -> [(key: String, value: Value)] {
        try await list(space, prefix: "")
    }
}
