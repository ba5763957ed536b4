import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Finding the namespace of a relay address or a `transfer_sub` by the locator's index: a hit is
/// confirmed on that one namespace's world; a miss brings the index up to date (worlds not indexed
/// yet, changed here, or, once per `refreshInterval`, changed on another replica) and looks again.
extension Namespaces {
    /// The world of the namespace `find` names in the locator, confirmed by `owns` on its current
    /// world, if any.
    func locate(
        _ find: (NamespaceLocator) -> String?, confirmedBy owns: (World) -> Bool
    ) async throws -> MockState? {
        if let state = try await confirmed(find(locator), owns) { return state }
        try await catchUpIdentities()
        return try await confirmed(find(locator), owns)
    }

    /// The world of the namespace `name` if it exists and `owns` its current world.
    private func confirmed(_ name: String?, _ owns: (World) -> Bool) async throws -> MockState? {
        guard let name, let state = try await existingState(name), let active = try? await state.current() else {
            return nil
        }
        return owns(active.world) ? state : nil
    }

    /// Builds and indexes the worlds the locator lacks: namespaces it has not indexed (made on
    /// another replica, or before this process started) or whose control record changed here, and
    /// once per `refreshInterval` those whose control record changed on another replica (every
    /// namespace's read in one step).
    func catchUpIdentities() async throws {
        try await recordCache.refreshIfStale()
        var stale = Array(locator.pending)
        let now = clock.now()
        let due = identitiesCheckedAt.withLock { checkedAt in
            guard now.timeIntervalSince(checkedAt) >= Self.refreshInterval else { return false }
            checkedAt = now
            return true
        }
        if due {
            let read = try await everyNamespace.eachControl { scope, control, _ in (scope.name, control) }
            stale = locator.unindexed(read.map(\.0), controls: read.map(\.1))
        }
        for name in stale {
            guard let state = try await existingState(name) else {
                locator.remove(name, record: nil)  // gone
                continue
            }
            guard let active = try? await state.current() else { continue }
            locator.index(active.world, control: active.control, of: name)
        }
    }
}
