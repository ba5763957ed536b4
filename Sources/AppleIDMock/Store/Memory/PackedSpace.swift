import HeapModule

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What `MemoryTables` asks of a space whose entries are kept packed.
protocol PackedStorage: AnyObject {
    /// How many entries it holds.
    var count: Int { get }
    /// The entry at `key`, unpacked.
    func entry(_ key: String) -> MemoryEntry?
    /// Stores `entry` at `key`; `false` (and nothing held at `key` any more) when it cannot be
    /// packed, so the caller keeps it unpacked.
    func write(_ key: String, _ entry: MemoryEntry) -> Bool
    /// Deletes the entry at `key`, if it holds one.
    func remove(_ key: String)
    /// Deletes everything.
    func removeAll()
    /// The keys of the entries filed under `group`.
    func keys(inGroup group: String) -> [String]
    /// Takes expiry marks before `now` and returns the keys of at most `limit` entries that did expire.
    func expiredKeys(before now: Date, limit: Int) -> [String]
    /// Files the expiry of the entry at `key` again.
    func restoreExpiry(_ key: String)
    /// Every entry, unpacked (for listings).
    func allEntries() -> [String: MemoryEntry]
}

/// One grant space kept packed: grants in an array of fixed-size slots (freed slots reused),
/// found through a `TokenIndex`, linked per group for `deleteGroup`, with a heap of expiry times.
final class PackedSpace<Grant: PackedGrant>: PackedStorage {
    /// The whole second (since the reference date, rounded down) in which a slot's grant expires,
    /// for the sweep, which checks the slot's exact expiry when it pops the mark. Eight bytes.
    private struct ExpiryMark: Comparable {
        var second: UInt32
        var slot: UInt32

        init(_ at: Double, slot: UInt32) {
            second = ExpiryMark.second(of: at)
            self.slot = slot
        }

        /// `at` rounded down to a whole second, within `UInt32` (before 2001: 0; after 2137: the last).
        static func second(of at: Double) -> UInt32 {
            at.isNaN ? 0 : UInt32(max(0, min(at.rounded(.down), Double(UInt32.max))))
        }

        static func < (lhs: Self, rhs: Self) -> Bool { lhs.second < rhs.second }
    }

    /// Free slots hold `Grant.vacant` (the zero id, which no token has): an optional would take a
    /// tag byte, and with it 8 more bytes a slot.
    private var slots: [Grant] = []
    private var free: [UInt32] = []
    private var index = TokenIndex()
    private var names = NameTable()
    /// The first slot (plus one) of each group's list, by the group's name number.
    private var heads: [UInt32: UInt32] = [:]
    private var expiry = Heap<ExpiryMark>()
    /// Marks of grants removed before they expired (a code is removed when it is exchanged); the
    /// heap is rebuilt from the live slots when they outnumber those.
    private var staleMarks = 0

    var count: Int { index.count }
    /// How many distinct names its grants use.
    var namesHeld: Int { names.count }

    /// The token id in `slot` (zero when it is free), for the index.
    private func id(ofSlot slot: UInt32) -> TokenID {
        slots[Int(slot)].id
    }

    /// The grant in `slot`, if it holds one.
    private func occupant(_ slot: UInt32) -> Grant? {
        let grant = slots[Int(slot)]
        return grant.id == .zero ? nil : grant
    }

    private func slot(_ key: String) -> UInt32? {
        guard let (kind, id) = OpaqueToken.parse(key), kind == Grant.kind else { return nil }
        return index.slot(of: id, idOf: id(ofSlot:))
    }

    func entry(_ key: String) -> MemoryEntry? {
        guard let slot = slot(key), let grant = occupant(slot) else { return nil }
        let (record, index) = grant.unpack(key: key, names: names)
        return MemoryEntry(value: record, index: index, seq: grant.seq)
    }

    func write(_ key: String, _ entry: MemoryEntry) -> Bool {
        guard let (kind, id) = OpaqueToken.parse(key), kind == Grant.kind else { return false }
        let existing = index.slot(of: id, idOf: id(ofSlot:))
        guard let record = entry.value as? Grant.Record,
            let grant = Grant.pack(record, id: id, key: key, index: entry.index, seq: entry.seq, names: &names)
        else {
            if let existing { remove(slot: existing) }
            return false
        }
        if let existing, let old = occupant(existing) {
            unlink(existing)
            old.release(names: &names)
            slots[Int(existing)] = grant
            link(existing)
            if let at = grant.expiresAt, old.expiresAt.map(ExpiryMark.second(of:)) != ExpiryMark.second(of: at) {
                expiry.insert(ExpiryMark(at, slot: existing))
                if old.expiresAt != nil { staleMarks += 1 }
            }
        } else {
            let slot: UInt32
            if let reused = free.popLast() {
                slot = reused
                slots[Int(slot)] = grant
            } else {
                slot = UInt32(slots.count)
                slots.append(grant)
            }
            index.insert(slot, idOf: id(ofSlot:))
            link(slot)
            if let at = grant.expiresAt { expiry.insert(ExpiryMark(at, slot: slot)) }
        }
        return true
    }

    func remove(_ key: String) {
        if let slot = slot(key) { remove(slot: slot) }
    }

    private func remove(slot: UInt32) {
        guard let grant = occupant(slot) else { return }
        unlink(slot)
        grant.release(names: &names)
        index.remove(slot, id: grant.id, idOf: id(ofSlot:))
        slots[Int(slot)] = Grant.vacant
        free.append(slot)
        if grant.expiresAt != nil { dropStaleMarks() }
    }

    /// Counts one more possibly stale mark (a removal by the sweep has had its mark popped
    /// already), and once they are over half of the heap, rebuilds it from the marks that still
    /// match their slot: each rebuild, linear in the heap, follows as many removals as it has marks.
    private func dropStaleMarks() {
        staleMarks += 1
        guard staleMarks > 1024, staleMarks * 2 > expiry.count else { return }
        expiry = Heap(expiry.unordered.filter { isLive($0) })
        staleMarks = 0
    }

    /// Whether `mark` is the one of its slot's grant (not left by a grant removed or rewritten).
    private func isLive(_ mark: ExpiryMark) -> Bool {
        occupant(mark.slot)?.expiresAt.map(ExpiryMark.second(of:)) == mark.second
    }

    func removeAll() {
        slots = []
        free = []
        index.removeAll()
        names = NameTable()
        heads = [:]
        expiry = Heap()
        staleMarks = 0
    }

    func keys(inGroup group: String) -> [String] {
        guard let number = names.number(of: group) else { return [] }
        var keys: [String] = []
        var next = heads[number] ?? 0
        while next != 0, let grant = occupant(next - 1) {
            keys.append(OpaqueToken.string(Grant.kind, grant.id))
            next = grant.links.next
        }
        return keys
    }

    func expiredKeys(before now: Date, limit: Int) -> [String] {
        let instant = now.timeIntervalSinceReferenceDate
        var expired = Set<UInt32>()
        // Marks of the second `now` is in whose grants expire later in it go back afterwards.
        var notYet: [ExpiryMark] = []
        while expired.count < limit, let mark = expiry.min, Double(mark.second) < instant {
            _ = expiry.popMin()
            guard isLive(mark), let at = occupant(mark.slot)?.expiresAt else { continue }
            if at < instant {
                expired.insert(mark.slot)  // a slot written twice may have two marks
            } else {
                notYet.append(mark)
            }
        }
        for mark in notYet { expiry.insert(mark) }
        return expired.compactMap { slot in occupant(slot).map { OpaqueToken.string(Grant.kind, $0.id) } }
    }

    func restoreExpiry(_ key: String) {
        guard let slot = slot(key), let at = occupant(slot)?.expiresAt else { return }
        expiry.insert(ExpiryMark(at, slot: slot))
    }

    func allEntries() -> [String: MemoryEntry] {
        var entries: [String: MemoryEntry] = [:]
        for grant in slots where grant.id != .zero {
            let key = OpaqueToken.string(Grant.kind, grant.id)
            let (record, index) = grant.unpack(key: key, names: names)
            entries[key] = MemoryEntry(value: record, index: index, seq: grant.seq)
        }
        return entries
    }

    /// Puts `slot` first in its group's list.
    private func link(_ slot: UInt32) {
        let group = slots[Int(slot)].links.group
        guard group != 0 else { return }
        let head = heads[group] ?? 0
        slots[Int(slot)].links.previous = 0
        slots[Int(slot)].links.next = head
        if head != 0 { slots[Int(head - 1)].links.previous = slot + 1 }
        heads[group] = slot + 1
    }

    /// Takes `slot` out of its group's list.
    private func unlink(_ slot: UInt32) {
        let links = slots[Int(slot)].links
        guard links.group != 0 else { return }
        if links.previous != 0 {
            slots[Int(links.previous - 1)].links.next = links.next
        } else {
            heads[links.group] = links.next == 0 ? nil : links.next
        }
        if links.next != 0 { slots[Int(links.next - 1)].links.previous = links.previous }
    }
}
