import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Making, changing and deleting namespaces: each one step (`NamespaceSteps`), one at a time in
/// this process (`recordWrites`), after which this process's records, worlds and use follow.
extension Namespaces {
    /// Makes the namespace `name` or changes it as `options` says; returns its record and whether
    /// it was made. With `onlyIfNew`, an existing namespace is left as it is.
    @discardableResult
    func put(_ name: String, _ options: NamespaceOptions, onlyIfNew: Bool = false) async throws -> (
        record: NamespaceRecord, created: Bool
    ) {
        try await recordWrites.withLock {
            let now = clock.now()
            recordCache.beginChange()
            let result = try await steps.put(name, options, onlyIfNew: onlyIfNew, now: now)
            if result.created { logger.info("namespace made", metadata: ["idp.namespace": .string(name)]) }
            recordCache.didPut(result.record)
            locator.controlChanged(name)
            return result
        }
    }

    /// Forgets the namespace `name` and all its state; `false` if it did not exist.
    func delete(_ name: String) async throws -> Bool {
        try await recordWrites.withLock { try await deleteAlone(name, idleAt: nil) }
    }

    /// `delete`, holding `recordWrites`; with `idleAt`, only if the namespace is still idle past its
    /// idle time at that instant, as stored when the step runs.
    func deleteAlone(_ name: String, idleAt now: Date?) async throws -> Bool {
        recordCache.beginChange()
        guard let existed = try await steps.delete(name, idleAt: now) else { return false }
        forget(name)
        if existed { logger.info("namespace deleted", metadata: ["idp.namespace": .string(name)]) }
        return existed
    }

    /// Forgets here the namespace `name` (its record, its world, the keys that found it, its
    /// pending use), deleted by a step here.
    func forget(_ name: String) {
        recordCache.didDelete(name)
        worlds.close(name)
        use.forget(name)
    }

    /// Forgets here the namespace `name` if the store holds no record of it: a request found its
    /// control record gone (`NamespaceGone`: deleted by another replica, the idle sweep, or a
    /// delete here that overtook it). Checked under `recordWrites`, so a namespace made anew
    /// meanwhile (by a request that named it) is kept. Choosing it again by name makes it anew.
    func forgetIfGone(_ name: String) async throws {
        try await recordWrites.withLock {
            if try await steps.storedRecord(name) == nil { forget(name) }
        }
    }
}
