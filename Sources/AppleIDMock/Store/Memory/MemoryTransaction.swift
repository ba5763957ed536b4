import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One step on the memory tables: writes are buffered and applied only when the step succeeds.
/// The store's lock is held for the whole step, so reads of the tables are stable.
final class MemoryTransaction: StateTransaction {
    private let store: MemoryStore
    private(set) var changes = StoreChanges()

    init(store: MemoryStore) {
        self.store = store
    }

    private func current(_ ref: EntryRef) -> MemoryEntry? {
        if let written = changes.writes[ref] { return written }
        if changes.cleared.contains(ref.space) { return nil }
        return store.tables.withLock { $0.entry(ref) }
    }

    func get<Value>(_ space: StoreSpace<Value>, _ key: String) async throws -> Value? {
        current(EntryRef(space: space.name, key: key))?.value as? Value
    }

    func put<Value>(_ space: StoreSpace<Value>, _ key: String, _ value: Value, index: EntryIndex) async throws {
        try Spaces.require(space.name)
        let ref = EntryRef(space: space.name, key: key)
        let seq = current(ref)?.seq ?? store.tables.withLock { $0.takeSeq() }
        changes.writes[ref] = MemoryEntry(value: value, index: index, seq: seq)
    }

    func delete<Value>(_ space: StoreSpace<Value>, _ key: String) async throws {
        changes.writes[EntryRef(space: space.name, key: key)] = .some(nil)
    }

    func list<Value>(_ space: StoreSpace<Value>, prefix: String) async throws -> [(key: String, value: Value)] {
        var entries: [String: MemoryEntry] = [:]
        if !changes.cleared.contains(space.name) {
            entries = store.tables.withLock { tables in
                let all = tables.entries(in: space.name)
                return prefix.isEmpty ? all : all.filter { $0.key.hasPrefix(prefix) }
            }
        }
        for (ref, entry) in changes.writes where ref.space == space.name && ref.key.hasPrefix(prefix) {
            entries[ref.key] = entry
        }
        // Sorted as (seq, key) pairs: sorting the entries themselves copied each one's boxed value on
        // every move, which made long lists (the namespaces' records, say) slow.
        let order = entries.map { (seq: $0.value.seq, key: $0.key) }.sorted { $0.seq < $1.seq }
        return order.compactMap { item in (entries[item.key]?.value as? Value).map { (item.key, $0) } }
    }

    func count<Value>(_ space: StoreSpace<Value>) async throws -> Int {
        let cleared = changes.cleared.contains(space.name)
        var count = cleared ? 0 : store.tables.withLock { $0.count(in: space.name) }
        for (ref, entry) in changes.writes where ref.space == space.name {
            let stored = !cleared && store.tables.withLock { $0.entry(ref) } != nil
            if entry != nil, !stored { count += 1 }
            if entry == nil, stored { count -= 1 }
        }
        return count
    }

    func deleteGroup(_ group: String, in spaces: [String]) async throws {
        var refs = store.tables.withLock { $0.refs(inGroup: group, spaces: spaces) }
            .filter { !changes.cleared.contains($0.space) }
        for (ref, entry) in changes.writes where spaces.contains(ref.space) && entry?.index.group == group {
            refs.append(ref)
        }
        for ref in refs { changes.writes[ref] = .some(nil) }
    }

    func clear(_ spaces: [String]) async throws {
        for space in spaces { try Spaces.require(space) }
        changes.cleared.append(contentsOf: spaces.filter { !changes.cleared.contains($0) })
        changes.writes = changes.writes.filter { !spaces.contains($0.key.space) }
    }

    func prune<Value>(_ space: StoreSpace<Value>, keep: Int) async throws {
        // Nothing to do while the space, with what this step writes, holds no more than `keep`.
        if !changes.cleared.contains(space.name) {
            let stored = store.tables.withLock { $0.count(in: space.name) }
            let written = changes.writes.keys.lazy.filter { $0.space == space.name }.count
            if stored + written <= keep { return }
        }
        // Idle entries (not due for work) by insertion order: the stored ones this step leaves alone,
        // then what it writes.
        var writtenKeys = Set<String>()
        var writtenIdle: [(key: String, seq: Int64)] = []
        for (ref, entry) in changes.writes where ref.space == space.name {
            writtenKeys.insert(ref.key)
            if let entry, entry.index.dueAt == nil { writtenIdle.append((ref.key, entry.seq)) }
        }
        var idle: [(key: String, seq: Int64)] = []
        if !changes.cleared.contains(space.name) {
            idle = store.tables.withLock { tables in
                var idle: [(key: String, seq: Int64)] = []
                for (key, entry) in tables.entries(in: space.name)
                where entry.index.dueAt == nil && !writtenKeys.contains(key) {
                    idle.append((key, entry.seq))
                }
                return idle
            }
        }
        idle += writtenIdle
        guard idle.count > keep else { return }
        for (key, _) in idle.sorted(by: { $0.seq < $1.seq }).prefix(idle.count - keep) {
            changes.writes[EntryRef(space: space.name, key: key)] = .some(nil)
        }
    }

}
