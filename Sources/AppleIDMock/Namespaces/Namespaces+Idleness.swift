import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Use and idle expiry: a request notes its namespace's use (`touch`), the housekeeping writes
/// the uses (`flushUse`) and deletes the namespaces idle past their idle time (`removeIdle`), on
/// the injected wall clock.
extension Namespaces {
    /// Notes that `name` was used now (written to its record by `flushUse`).
    func touch(_ name: String) {
        use.touch(name)
    }

    /// Writes when each namespace touched since the last call was last used.
    func flushUse() async throws {
        let store = defaultState.store
        try await recordWrites.withLock { try await use.flush(to: store) }
    }

    /// Deletes the namespaces unused for longer than their idle time at `now` (the wall clock's
    /// instant by default); returns their names.
    func removeIdle(now: Date? = nil) async throws -> [String] {
        let now = now ?? clock.now()
        try await flushUse()
        try await refresh()
        let idle = recordCache.all.filter { NamespaceRules.isIdle($0, at: now) }.map(\.name)
        var removed: [String] = []
        // Each is checked again in its step: one used meanwhile (here or on a replica that wrote
        // its use) stays.
        for name in idle where !use.isPending(name) {
            guard try await recordWrites.withLock({ try await deleteAlone(name, idleAt: now) }) else { continue }
            removed.append(name)
            logger.info("idle namespace removed", metadata: ["idp.namespace": .string(name)])
        }
        return removed
    }
}
