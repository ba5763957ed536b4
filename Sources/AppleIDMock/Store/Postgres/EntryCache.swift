import Synchronization

/// Entries read from PostgreSQL, decoded, with the version each was read at (absent ones too): an
/// optimistic step reads them without a round trip, and its commit, which checks the version of
/// everything the step read, refuses it if one changed meanwhile (on another replica, say); the
/// step then forgets what it read and runs again on fresh reads. So the cache can be stale but
/// never wrong. The control records are kept here too: the one a request reads first (outside
/// any step) is the one its step then reads. Bounded by entries and by the bytes of their stored
/// text (decoded values take about as much): emptied when either is full; a value larger than a
/// sixteenth of the bytes (an uploaded scenario) is not kept.
final class EntryCache: Sendable {
    /// An entry as read: its version and its decoded value (`nil`: absent).
    struct Entry: Sendable {
        var version: EntryVersion
        var value: (any Sendable)?
    }

    /// The entries kept, each with its stored text's length, and their total.
    private struct Kept {
        var entries: [EntryAddress: (entry: Entry, bytes: Int)] = [:]
        var bytes = 0
    }

    private let kept = Mutex(Kept())
    private let limit: Int
    private let byteLimit: Int

    init(limit: Int = 8192, byteLimit: Int = 16 << 20) {
        self.limit = limit
        self.byteLimit = byteLimit
    }

    /// The entry kept for `address`, if any.
    func entry(_ address: EntryAddress) -> Entry? { kept.withLock { $0.entries[address]?.entry } }

    /// Keeps `entry`, read from `text` (`nil`: absent), for `address`, unless the text is too long.
    func keep(_ address: EntryAddress, _ entry: Entry, text: String?) {
        let bytes = text?.utf8.count ?? 0
        guard bytes <= byteLimit / 16 else { return }
        kept.withLock { kept in
            if let old = kept.entries.removeValue(forKey: address) { kept.bytes -= old.bytes }
            if kept.entries.count >= limit || kept.bytes + bytes > byteLimit {
                kept.entries.removeAll(keepingCapacity: true)
                kept.bytes = 0
            }
            kept.entries[address] = (entry, bytes)
            kept.bytes += bytes
        }
    }

    /// Forgets what is kept for `addresses` (written, or found stale).
    func forget<Addresses: Sequence<EntryAddress>>(_ addresses: Addresses) {
        kept.withLock { kept in
            for address in addresses {
                if let old = kept.entries.removeValue(forKey: address) { kept.bytes -= old.bytes }
            }
        }
    }

    /// Forgets what is kept of `space` (pruned).
    func forget(space: String) {
        kept.withLock { kept in
            kept.entries = kept.entries.filter { $0.key.space != space }
            kept.bytes = kept.entries.values.reduce(0) { $0 + $1.bytes }
        }
    }
}
