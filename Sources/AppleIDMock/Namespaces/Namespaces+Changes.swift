import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Making, changing and deleting namespaces: each one step on the store, by `NamespaceRules`,
/// one at a time in this process (`recordWrites`).
extension Namespaces {
    /// Makes the namespace `name` or changes it as `options` says; returns its record and whether
    /// it was made. With `onlyIfNew`, an existing namespace is left as it is.
    @discardableResult
    func put(_ name: String, _ options: NamespaceOptions, onlyIfNew: Bool = false) async throws -> (
        record: NamespaceRecord, created: Bool
    ) {
        try await recordWrites.withLock { try await putAlone(name, options, onlyIfNew: onlyIfNew) }
    }

    /// `put`, holding `recordWrites`.
    private func putAlone(_ name: String, _ options: NamespaceOptions, onlyIfNew: Bool) async throws -> (
        record: NamespaceRecord, created: Bool
    ) {
        let scope = NamespaceScope(name: name)
        let locator = locator
        let catalog = defaultState.catalog
        let initialScenario = defaultState.initialScenario
        let now = clock.now()
        recordCache.beginChange()
        let result = try await defaultState.base.transaction { raw in
            let home = ScopedTransaction(raw, scope: .default, directory: locator)
            let own = ScopedTransaction(raw, scope: scope, directory: locator)
            let existing = try await home.get(Spaces.namespaces, name)
            if let existing, onlyIfNew { return (existing, false) }
            if existing == nil {
                try NamespaceRules.refuseMaking(
                    name, count: try await home.count(Spaces.namespaces), tagOwner: locator.name(ofTag: scope.tag))
            }
            if let clients = options.clients, !clients.isEmpty {
                try NamespaceRules.refuseClaims(clients, for: name, records: try await home.list(Spaces.namespaces))
            }
            let record = NamespaceRules.record(existing, name: name, options: options, now: now)
            try await home.put(Spaces.namespaces, name, record)
            let stored = try await own.get(Spaces.control, ControlState.key)
            var control = stored ?? NamespaceRules.newControl(initialScenario: initialScenario)
            if let scenario = options.scenario, scenario != control.scenario || stored == nil {
                if stored == nil {
                    try await MockState.requireScenario(scenario, catalog: catalog, in: own, at: "$.scenario")
                    control.scenario = scenario
                } else {
                    try await MockState.switchScenario(
                        to: scenario, control: &control, catalog: catalog, in: own, at: "$.scenario")
                }
            }
            if let identities = options.identities { control.identities = identities }
            if control != stored { try await own.put(Spaces.control, ControlState.key, control) }
            return (record, existing == nil)
        }
        if result.1 { logger.info("namespace made", metadata: ["idp.namespace": .string(name)]) }
        recordCache.didPut(result.0)
        locator.controlChanged(name)
        return (result.0, result.1)
    }

    /// Forgets the namespace `name` and all its state; `false` if it did not exist.
    func delete(_ name: String) async throws -> Bool {
        try await recordWrites.withLock { try await deleteAlone(name, idleAt: nil) }
    }

    /// `delete`, holding `recordWrites`; with `idleAt`, only if the namespace is still idle past its
    /// idle time at that instant, as stored when the step runs.
    func deleteAlone(_ name: String, idleAt now: Date?) async throws -> Bool {
        let scope = NamespaceScope(name: name)
        let locator = locator
        recordCache.beginChange()
        // nil: kept (used since it was found idle); false: there was none.
        let existed = try await defaultState.base.transaction { raw -> Bool? in
            let home = ScopedTransaction(raw, scope: .default, directory: locator)
            guard let record = try await home.get(Spaces.namespaces, name) else { return false }
            if let now, !NamespaceRules.isIdle(record, at: now) { return nil }
            try await home.delete(Spaces.namespaces, name)
            try await ScopedTransaction(raw, scope: scope, directory: locator).clear(Spaces.registered.map(\.name))
            return true
        }
        guard let existed else { return false }
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
        let locator = locator
        try await recordWrites.withLock {
            let stored = try await defaultState.base.transaction { raw in
                try await ScopedTransaction(raw, scope: .default, directory: locator).get(Spaces.namespaces, name)
            }
            if stored == nil { forget(name) }
        }
    }
}
