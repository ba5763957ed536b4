import Foundation
import HeapModule

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

    var isEmpty: Bool { cleared.isEmpty && writes.isEmpty }
}

/// The in-memory tables with the indexes that keep housekeeping from scanning everything: entries
/// by group, entries due for work, and a heap of expiry times.
struct MemoryTables: ~Copyable {
    /// When an entry expires, for the sweep (checked against the entry when popped).
    private struct ExpiryMark: Comparable {
        var at: Date
        var ref: EntryRef

        static func < (lhs: Self, rhs: Self) -> Bool { lhs.at < rhs.at }
        static func == (lhs: Self, rhs: Self) -> Bool { lhs.at == rhs.at && lhs.ref == rhs.ref }
    }

    private(set) var spaces: [String: [String: MemoryEntry]] = [:]
    private var groups: [String: Set<EntryRef>] = [:]
    private(set) var due: [String: [String: Date]] = [:]
    private var expiry = Heap<ExpiryMark>()
    /// The next insertion number.
    private(set) var nextSeq: Int64 = 1
    /// Counts writes of the control record.
    private(set) var controlRevision: Int64 = 0

    func entry(_ ref: EntryRef) -> MemoryEntry? {
        spaces[ref.space]?[ref.key]
    }

    /// The refs of a group in the spaces named.
    func refs(inGroup group: String, spaces names: [String]) -> [EntryRef] {
        (groups[group] ?? []).filter { names.contains($0.space) }
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

    /// Writes an entry as loaded or changed, keeping the indexes.
    mutating func write(_ ref: EntryRef, _ entry: MemoryEntry) {
        if let old = spaces[ref.space]?[ref.key] { unindex(ref, old) }
        spaces[ref.space, default: [:]][ref.key] = entry
        if let group = entry.index.group { groups[group, default: []].insert(ref) }
        if let dueAt = entry.index.dueAt { due[ref.space, default: [:]][ref.key] = dueAt }
        if let expiresAt = entry.index.expiresAt { expiry.insert(ExpiryMark(at: expiresAt, ref: ref)) }
        if ref.space == Spaces.control.name { controlRevision += 1 }
        nextSeq = max(nextSeq, entry.seq + 1)
    }

    private mutating func remove(_ ref: EntryRef) {
        guard let old = spaces[ref.space]?.removeValue(forKey: ref.key) else { return }
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
        for key in spaces[name]?.keys.map({ $0 }) ?? [] { remove(EntryRef(space: name, key: key)) }
        spaces[name] = nil
        due[name] = nil
    }

    /// Takes the expiry marks due before `now` and returns the entries they name that did expire (the
    /// caller deletes them, or gives them back with `restoreExpiry` if it cannot).
    mutating func expiredRefs(before now: Date) -> [EntryRef] {
        var expired = Set<EntryRef>()
        while let mark = expiry.min, mark.at < now {
            _ = expiry.popMin()
            guard let entry = entry(mark.ref), let expiresAt = entry.index.expiresAt, expiresAt < now else { continue }
            expired.insert(mark.ref)  // an entry written twice has two marks
        }
        return Array(expired)
    }

    /// Files the expiry of `refs` again (their deletion failed).
    mutating func restoreExpiry(_ refs: [EntryRef]) {
        for ref in refs {
            if let expiresAt = entry(ref)?.index.expiresAt { expiry.insert(ExpiryMark(at: expiresAt, ref: ref)) }
        }
    }
}
