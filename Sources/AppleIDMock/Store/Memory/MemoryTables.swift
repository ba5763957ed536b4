import HeapModule

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An entry's address: its space and key.
struct EntryRef: Hashable, Sendable {
    var space: String
    var key: String
}

/// A stored value with its index and insertion number (which orders listings).
struct MemoryEntry: Sendable {
    var value: any Sendable
    var index: EntryIndex
    var seq: Int64
}

/// What one step changed: spaces emptied first, then entries written (`nil`: deleted). A durable
/// store writes exactly this before the step counts as done.
struct StoreChanges: Sendable {
    var cleared: [String] = []
    var writes: [EntryRef: MemoryEntry?] = [:]
    /// The insertion numbers the written entries had before, where an entry is deleted or numbered
    /// anew (deleted and written again): the rows the journal's file no longer keeps, since it finds
    /// its rows by number. Set by the store just before a write (`MemoryStore.retiring`).
    var retired: [Int64] = []

    var isEmpty: Bool { cleared.isEmpty && writes.isEmpty }
}

/// The in-memory tables with the indexes that keep housekeeping from scanning everything: entries
/// by group, entries due for work, and a heap of expiry times. Codes and tokens, which a load test
/// makes by the million, are kept packed (`PackedSpace`); an entry that cannot be packed is kept
/// like any other.
struct MemoryTables: ~Copyable {
    /// When an entry expires, for the sweep (checked against the entry when popped).
    private struct ExpiryMark: Comparable {
        var at: Date
        var ref: EntryRef

        static func < (lhs: Self, rhs: Self) -> Bool { lhs.at < rhs.at }
        static func == (lhs: Self, rhs: Self) -> Bool { lhs.at == rhs.at && lhs.ref == rhs.ref }
    }

    private var spaces: [String: [String: MemoryEntry]] = [:]
    /// The packed spaces, by name.
    private let packed: [String: any PackedStorage] = [
        Spaces.codes.name: PackedSpace<PackedCode>(),
        Spaces.spentCodes.name: PackedSpace<PackedSpentCode>(),
        Spaces.accessTokens.name: PackedSpace<PackedAccessToken>(),
        Spaces.refreshTokens.name: PackedSpace<PackedRefreshToken>(),
    ]
    private var groups: [String: Set<EntryRef>] = [:]
    private(set) var due: [String: [String: Date]] = [:]
    private var expiry = Heap<ExpiryMark>()
    /// The next insertion number.
    private(set) var nextSeq: Int64 = 1
    /// Counts writes and removals of every namespace's control record.
    private(set) var controlRevision: Int64 = 0

    func entry(_ ref: EntryRef) -> MemoryEntry? {
        packed[ref.space]?.entry(ref.key) ?? spaces[ref.space]?[ref.key]
    }

    /// Every entry of a space, by key.
    func entries(in space: String) -> [String: MemoryEntry] {
        guard let packed = packed[space] else { return spaces[space] ?? [:] }
        return packed.allEntries().merging(spaces[space] ?? [:]) { packed, _ in packed }
    }

    /// How many entries a space holds.
    func count(in space: String) -> Int {
        (packed[space]?.count ?? 0) + (spaces[space]?.count ?? 0)
    }

    /// The refs of a group in the spaces named.
    func refs(inGroup group: String, spaces names: [String]) -> [EntryRef] {
        var refs = (groups[group] ?? []).filter { names.contains($0.space) }
        for name in names {
            for key in packed[name]?.keys(inGroup: group) ?? [] { refs.insert(EntryRef(space: name, key: key)) }
        }
        return Array(refs)
    }

    /// Takes an insertion number.
    mutating func takeSeq() -> Int64 {
        defer { nextSeq += 1 }
        return nextSeq
    }

    /// Applies a step's changes.
    mutating func apply(_ changes: StoreChanges) {
        for name in changes.cleared { clear(name) }
        for (ref, entry) in changes.writes {
            if let entry { write(ref, entry) } else { remove(ref) }
        }
    }

    /// Numbers new entries after `seq` (a number the journal's file holds).
    mutating func numberAfter(_ seq: Int64) {
        nextSeq = max(nextSeq, seq + 1)
    }

    /// Writes an entry as loaded or changed, keeping the indexes.
    mutating func write(_ ref: EntryRef, _ entry: MemoryEntry) {
        if StoredSpaceName.spaceName(in: ref.space) == Spaces.control.name { controlRevision += 1 }
        nextSeq = max(nextSeq, entry.seq + 1)
        if let packed = packed[ref.space], packed.write(ref.key, entry) {
            remove(unpacked: ref)
            return
        }
        if let old = spaces[ref.space]?[ref.key] { unindex(ref, old) }
        spaces[ref.space, default: [:]][ref.key] = entry
        if let group = entry.index.group { groups[group, default: []].insert(ref) }
        if let dueAt = entry.index.dueAt { due[ref.space, default: [:]][ref.key] = dueAt }
        if let expiresAt = entry.index.expiresAt { expiry.insert(ExpiryMark(at: expiresAt, ref: ref)) }
    }

    private mutating func remove(_ ref: EntryRef) {
        packed[ref.space]?.remove(ref.key)
        remove(unpacked: ref)
    }

    private mutating func remove(unpacked ref: EntryRef) {
        guard let old = spaces[ref.space]?.removeValue(forKey: ref.key) else { return }
        if StoredSpaceName.spaceName(in: ref.space) == Spaces.control.name { controlRevision += 1 }
        unindex(ref, old)
    }

    private mutating func unindex(_ ref: EntryRef, _ entry: MemoryEntry) {
        if let group = entry.index.group {
            groups[group]?.remove(ref)
            if groups[group]?.isEmpty == true { groups[group] = nil }
        }
        if entry.index.dueAt != nil { due[ref.space]?[ref.key] = nil }
        // Expiry marks are left in the heap and ignored when popped.
    }

    private mutating func clear(_ name: String) {
        packed[name]?.removeAll()
        for key in spaces[name]?.keys.map({ $0 }) ?? [] { remove(unpacked: EntryRef(space: name, key: key)) }
        spaces[name] = nil
        due[name] = nil
    }

    /// Takes expiry marks due before `now` and returns up to `limit` entries they name that did
    /// expire (the caller deletes them, or gives them back with `restoreExpiry` if it cannot).
    mutating func expiredRefs(before now: Date, limit: Int = .max) -> [EntryRef] {
        var expired = Set<EntryRef>()
        while expired.count < limit, let mark = expiry.min, mark.at < now {
            _ = expiry.popMin()
            guard let entry = entry(mark.ref), let expiresAt = entry.index.expiresAt, expiresAt < now else { continue }
            expired.insert(mark.ref)  // an entry written twice has two marks
        }
        for (name, space) in packed where expired.count < limit {
            for key in space.expiredKeys(before: now, limit: limit - expired.count) {
                expired.insert(EntryRef(space: name, key: key))
            }
        }
        return Array(expired)
    }

    /// Files the expiry of `refs` again (their deletion failed).
    mutating func restoreExpiry(_ refs: [EntryRef]) {
        for ref in refs {
            packed[ref.space]?.restoreExpiry(ref.key)
            if let expiresAt = spaces[ref.space]?[ref.key]?.index.expiresAt {
                expiry.insert(ExpiryMark(at: expiresAt, ref: ref))
            }
        }
    }
}
