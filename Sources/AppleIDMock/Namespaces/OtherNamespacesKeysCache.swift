import Synchronization

/// `OtherNamespacesKeys` as last read, kept while the store's control generation stays where it
/// was read at (`SoleWriterStore.controlGeneration`): every change of a namespace's control record
/// (its keys, its clock, its making or deleting) moves it. A store other processes write too has
/// none, and is read on every call.
final class OtherNamespacesKeysCache: Sendable {
    /// The store when this process writes it alone, found once.
    private let soleWriter: (any SoleWriterStore)?
    /// The keys as read, with the generation read before them.
    private let known = Mutex<(generation: Int64, keys: OtherNamespacesKeys)?>(nil)

    init(store: any StateStore) {
        soleWriter = store as? any SoleWriterStore
    }

    /// The keys read at the store's current generation, or read now by `read` (and kept, when the
    /// store has a generation).
    func keys(read: () async throws -> OtherNamespacesKeys) async throws -> OtherNamespacesKeys {
        guard let generation = soleWriter?.controlGeneration else { return try await read() }
        if let known = known.withLock({ $0 }), known.generation == generation { return known.keys }
        // Read after the generation: a change in between moves it again, and the next call reads again.
        let keys = try await read()
        known.withLock { current in
            if (current?.generation ?? .min) <= generation { current = (generation, keys) }
        }
        return keys
    }
}
