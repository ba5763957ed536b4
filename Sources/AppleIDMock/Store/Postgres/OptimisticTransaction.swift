import Logging
import PostgresNIO
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One step on PostgreSQL run optimistically: its reads share statements with other steps' (each
/// remembers the version it saw), its writes wait in the step, and the commit writes them only if
/// nothing it read changed meanwhile (else the store runs the step again). A prune is made by the
/// commit too. A step that lists besides other reads or writes, clears or deletes a group refuses
/// here with `NeedsWriteLock`, and runs under the store's write lock.
final class OptimisticTransaction: StateTransaction, Sendable {
    /// What the step read and wrote so far.
    private struct State {
        /// The first version seen of each entry read, with its value (`nil`: absent): a step that
        /// reads an entry again sees the same.
        var checks: [EntryAddress: Seen] = [:]
        var checkOrder: [EntryAddress] = []
        var writes: [PostgresBatches.Write] = []
        var prunes: [PostgresBatches.Prune] = []
        /// What the step wrote, for its own reads (`nil` text: deleted).
        var written: [EntryAddress: String?] = [:]
        /// Whether any read came from the cache (the commit must then check even a lone read).
        var usedCache = false
        /// How many lists the step read.
        var lists = 0
        /// Whether the step asked for a prune, a clear or a group's deletion (it runs under the lock).
        var needsLock = false
    }

    /// An entry as the step first read it.
    struct Seen {
        var version: EntryVersion
        var value: (any Sendable)?
    }

    private let batches: PostgresBatches
    /// Reads a list on a connection of its own.
    private let lister: PostgresLister
    private let state = Mutex(State())

    init(batches: PostgresBatches, lister: PostgresLister) {
        self.batches = batches
        self.lister = lister
    }

    /// What the commit checks and writes.
    var step: PostgresBatches.Step {
        state.withLock { state in
            PostgresBatches.Step(
                reads: state.checkOrder.map {
                    PostgresBatches.Check(space: $0.space, key: $0.key, version: state.checks[$0]?.version ?? .absent)
                },
                writes: state.writes, prunes: state.prunes)
        }
    }

    /// Whether any read came from the cache, so that only the commit's check makes it current.
    var usedCache: Bool { state.withLock { $0.usedCache } }

    /// Every entry the step read.
    var readAddresses: [EntryAddress] { state.withLock { $0.checkOrder } }

    /// Every entry the step wrote or deleted.
    var writtenAddresses: Dictionary<EntryAddress, String?>.Keys { state.withLock { $0.written.keys } }

    func get<Value>(_ space: StoreSpace<Value>, _ key: String) async throws -> Value? {
        // PostgreSQL text cannot hold NUL, so no stored key has one (a forged code or token may).
        guard !key.utf8.contains(0) else { return nil }
        let address = EntryAddress(space: space.name, key: key)
        let (written, seen, pruned) = state.withLock { state in
            (state.written[address], state.checks[address], state.prunes.contains { $0.space == space.name })
        }
        // What a prune of this step leaves of the space is known only once it is made.
        if pruned { try refuse() }
        if let written {
            return try written.map { try StoreCoding.decoder.decode(Value.self, from: Data($0.utf8)) }
        }
        if let seen { return seen.value as? Value }
        if let cached = batches.entries.entry(address) {
            if cached.value == nil {
                remember(address, Seen(version: cached.version, value: nil), cached: true)
                return nil
            }
            if let value = cached.value as? Value {
                remember(address, Seen(version: cached.version, value: value), cached: true)
                return value
            }
        }
        let stored = try await batches.reads.submit(PostgresBatches.Read(space: space.name, key: key))
        let value = try stored.text.map { try StoreCoding.decoder.decode(Value.self, from: Data($0.utf8)) }
        remember(address, Seen(version: stored.version, value: value), cached: false)
        batches.entries.keep(address, EntryCache.Entry(version: stored.version, value: value), text: stored.text)
        return value
    }

    /// Notes the version first seen of `address` (a later read of it sees the same, or the commit
    /// fails), and whether it came from the cache.
    private func remember(_ address: EntryAddress, _ seen: Seen, cached: Bool) {
        state.withLock { state in
            guard state.checks[address] == nil else { return }
            state.checks[address] = seen
            state.checkOrder.append(address)
            if cached { state.usedCache = true }
        }
    }

    func put<Value>(_ space: StoreSpace<Value>, _ key: String, _ value: Value, index: EntryIndex) async throws {
        try Spaces.require(space.name)
        guard !key.utf8.contains(0) else {
            throw StoreUnavailable(cause: "PostgreSQL cannot store a key that holds NUL")
        }
        try refuseAfterPrune(space.name)
        let text = try StoreCoding.text(value)
        let address = EntryAddress(space: space.name, key: key)
        state.withLock { state in
            state.writes.append(PostgresBatches.Write(space: space.name, key: key, text: text, index: index))
            state.written[address] = .some(text)
        }
    }

    func putAll<Value>(_ space: StoreSpace<Value>, _ entries: [(key: String, value: Value)]) async throws {
        for entry in entries { try await put(space, entry.key, entry.value, index: EntryIndex()) }
    }

    func delete<Value>(_ space: StoreSpace<Value>, _ key: String) async throws {
        guard !key.utf8.contains(0) else { return }
        try refuseAfterPrune(space.name)
        let address = EntryAddress(space: space.name, key: key)
        state.withLock { state in
            state.writes.append(PostgresBatches.Write(space: space.name, key: key, text: nil, index: EntryIndex()))
            state.written[address] = .some(nil)
        }
    }

    /// A list cannot be checked at commit (an entry may be added to its range meanwhile), but one
    /// statement reads a consistent state: a step whose only read is one list needs no lock. The
    /// store runs any other step that lists again under the write lock (see `needsLock`).
    func list<Value>(_ space: StoreSpace<Value>, prefix: String) async throws -> [(key: String, value: Value)] {
        let already = state.withLock { state in
            defer { state.lists += 1 }
            return state.lists > 0 || !state.checkOrder.isEmpty || !state.writes.isEmpty || !state.prunes.isEmpty
        }
        if already { try refuse() }
        return try await lister.list(space, prefix: prefix)
    }

    /// Whether the step must run under the write lock (it listed besides other reads or writes, or
    /// asked for a prune, a clear or a group's deletion), whatever it did with the refusal.
    var needsLock: Bool {
        state.withLock { state in
            state.needsLock
                || (state.lists > 0
                    && (state.lists > 1 || !state.checkOrder.isEmpty || !state.writes.isEmpty || !state.prunes.isEmpty))
        }
    }

    /// Notes that the step needs the write lock, and refuses.
    private func refuse() throws -> Never {
        state.withLock { $0.needsLock = true }
        throw NeedsWriteLock()
    }

    func deleteGroup(_ group: String, in spaces: [String]) async throws { try refuse() }

    func clear(_ spaces: [String]) async throws { try refuse() }

    func prune<Value>(_ space: StoreSpace<Value>, keep: Int) async throws {
        state.withLock { $0.prunes.append(PostgresBatches.Prune(space: space.name, keep: max(0, keep))) }
    }

    /// The commit makes a step's prunes after its writes: a write to a space the step pruned
    /// before runs under the write lock, in the order the step made them.
    private func refuseAfterPrune(_ space: String) throws {
        if state.withLock({ state in state.prunes.contains { $0.space == space } }) { try refuse() }
    }

    /// The spaces the step prunes.
    var prunedSpaces: [String] { state.withLock { $0.prunes.map(\.space) } }
}

/// Reads a list outside any transaction, on a pooled connection, within the step's deadline (for
/// `OptimisticTransaction`).
struct PostgresLister: Sendable {
    let client: @Sendable () -> PostgresClient
    let timeout: Duration
    let logger: Logger

    func list<Value>(_ space: StoreSpace<Value>, prefix: String) async throws -> [(key: String, value: Value)] {
        try await PostgresDeadline.racing(timeout) {
            try await client().withConnection { connection in
                try await PostgresTransaction(connection: connection, logger: logger).list(space, prefix: prefix)
            }
        }
    }
}

/// An entry's place: its space's stored name and its key, told apart byte by byte as PostgreSQL
/// does (Swift's `==` holds two spellings of "é" equal, which are two keys there).
struct EntryAddress: Hashable, Sendable {
    var space: String
    var key: String

    static func == (left: EntryAddress, right: EntryAddress) -> Bool {
        sameBytes(left.key, right.key) && sameBytes(left.space, right.space)
    }

    /// Whether `left` and `right` are the same UTF-8 bytes (compared at once when both are contiguous).
    private static func sameBytes(_ left: String, _ right: String) -> Bool {
        guard left.utf8.count == right.utf8.count else { return false }
        let same = left.utf8.withContiguousStorageIfAvailable { leftBytes in
            right.utf8.withContiguousStorageIfAvailable { leftBytes.elementsEqual($0) }
        }
        return (same ?? nil) ?? left.utf8.elementsEqual(right.utf8)
    }

    func hash(into hasher: inout Hasher) {
        Self.combine(space, into: &hasher)
        hasher.combine(UInt8(0xFF))  // never in UTF-8: the space ends here
        Self.combine(key, into: &hasher)
    }

    /// Feeds `text`'s UTF-8 bytes to `hasher` (at once when they are contiguous, as a native string's are).
    private static func combine(_ text: String, into hasher: inout Hasher) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable {
            hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
        if done == nil { for byte in text.utf8 { hasher.combine(byte) } }
    }
}

/// A step asked for what an optimistic step cannot check (a list, a prune, a clear): the store
/// runs it again under its write lock.
struct NeedsWriteLock: Error {}
