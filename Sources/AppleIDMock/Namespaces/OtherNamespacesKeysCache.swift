import Synchronization

/// `OtherNamespacesKeys` as last read, kept while the store's control generation stays where it
/// was read at (`StateStore.controlGeneration`): every change of a namespace's control record
/// (its keys, its clock, its making or deleting) moves it. A store other processes write too has
/// none, and is read on every call.
final class OtherNamespacesKeysCache: Sendable {
    /// The keys as read, with the generation read before them.
    private let known = Mutex<(generation: Int64, keys: OtherNamespacesKeys)?>(nil)

    /// The keys read at `generation`, or read now by `read` (and kept, unless `generation` is `nil`).
    func keys(generation: Int64?, read: () async throws -> OtherNamespacesKeys) async throws -> OtherNamespacesKeys {
        guard let generation else { return try await read() }
        if let known = known.withLock({ $0 }), known.generation == generation { return known.keys }
        // Read after the generation: a change in between moves it again, and the next call reads again.
        let keys = try await read()
        known.withLock { current in
            if (current?.generation ?? .min) <= generation { current = (generation, keys) }
        }
        return keys
    }
}
