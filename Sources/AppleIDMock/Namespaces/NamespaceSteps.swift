#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The store steps that make, change and delete a namespace: its record (kept in the default
/// namespace) and its own control record, each written in one step by `NamespaceRules`. What this
/// process knows of the namespaces (records, worlds, use) is `Namespaces`'s to update after a step.
struct NamespaceSteps: Sendable {
    /// The store every namespace shares.
    let base: any StateStore
    let locator: NamespaceLocator
    let catalog: ScenarioCatalog
    /// The scenario a new namespace starts with.
    let initialScenario: String

    /// Makes the namespace `name` or changes it as `options` says, used at `now`; returns its
    /// record and whether it was made. With `onlyIfNew`, an existing namespace is left as it is.
    func put(_ name: String, _ options: NamespaceOptions, onlyIfNew: Bool, now: Date) async throws -> (
        record: NamespaceRecord, created: Bool
    ) {
        let scope = NamespaceScope(name: name)
        return try await base.transaction { raw in
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
    }

    /// Deletes the namespace `name`'s record and all its state; with `idleAt`, only if it is still
    /// idle past its idle time at that instant, as stored when the step runs. `true`: deleted;
    /// `false`: there was none; `nil`: kept (used since it was found idle).
    func delete(_ name: String, idleAt now: Date?) async throws -> Bool? {
        let scope = NamespaceScope(name: name)
        return try await base.transaction { raw -> Bool? in
            let home = ScopedTransaction(raw, scope: .default, directory: locator)
            guard let record = try await home.get(Spaces.namespaces, name) else { return false }
            if let now, !NamespaceRules.isIdle(record, at: now) { return nil }
            try await home.delete(Spaces.namespaces, name)
            try await ScopedTransaction(raw, scope: scope, directory: locator).clear(Spaces.registered.map(\.name))
            return true
        }
    }

    /// The record of the namespace `name` as the store holds it now, if any.
    func storedRecord(_ name: String) async throws -> NamespaceRecord? {
        return try await base.transaction { raw in
            try await ScopedTransaction(raw, scope: .default, directory: locator).get(Spaces.namespaces, name)
        }
    }
}
