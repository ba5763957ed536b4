import Synchronization

/// Entries read from PostgreSQL, decoded, with the version each was read at (absent ones too): an
/// optimistic step reads them without a round trip, and its commit, which checks the version of
/// everything the step read, refuses it if one changed meanwhile (on another replica, say); the
/// step then forgets what it read and runs again on fresh reads. So the cache can be stale but
/// never wrong. Bounded: emptied when full; large values are not kept.
final class EntryCache: Sendable {
    /// An entry as read: its version and its decoded value (`nil`: absent).
    struct Entry: Sendable {
        var version: EntryVersion
        var value: (any Sendable)?
    }

    private let entries = Mutex<[EntryAddress: Entry]>([:])
    private let limit: Int
    /// The longest stored text kept (an uploaded scenario is read once per control change).
    static let largestText = 4096

    init(limit: Int = 8192) {
        self.limit = limit
    }

    /// The entry kept for `address`, if any.
    func entry(_ address: EntryAddress) -> Entry? { entries.withLock { $0[address] } }

    /// Keeps `value`, read at `version`, for `address`.
    func keep(_ address: EntryAddress, _ entry: Entry) {
        entries.withLock { entries in
            if entries.count >= limit, entries[address] == nil { entries.removeAll(keepingCapacity: true) }
            entries[address] = entry
        }
    }

    /// Forgets what is kept for `addresses` (written, or found stale).
    func forget<Addresses: Sequence<EntryAddress>>(_ addresses: Addresses) {
        entries.withLock { entries in
            for address in addresses { entries.removeValue(forKey: address) }
        }
    }

    /// Forgets what is kept of `space` (pruned).
    func forget(space: String) {
        entries.withLock { entries in
            entries = entries.filter { $0.key.space != space }
        }
    }

    /// How many entries are kept (for tests).
    var count: Int { entries.withLock { $0.count } }
}
