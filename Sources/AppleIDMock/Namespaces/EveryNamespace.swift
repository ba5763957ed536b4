/// Reads across namespaces in one step of the shared store: every namespace's view of the step,
/// and its control record (for the keys published everywhere, the sweep's earliest clock, the
/// worlds the identity index must build again, every namespace's journal).
struct EveryNamespace: Sendable {
    /// The store every namespace shares.
    let base: any StateStore
    let locator: NamespaceLocator

    /// In one step, `body` for each of `scopes` (`nil`: every namespace the records list, the default
    /// first when `includingDefault`) with its view of the step; returns what `body` returned, in
    /// order.
    func each<T: Sendable>(
        _ scopes: [NamespaceScope]? = nil, includingDefault: Bool = false,
        _ body: @escaping @Sendable (NamespaceScope, ScopedTransaction) async throws -> T
    ) async throws -> [T] {
        let locator = locator
        return try await base.transaction { raw in
            var listed = scopes ?? []
            if scopes == nil {
                let home = ScopedTransaction(raw, scope: .default, directory: locator)
                listed = try await home.list(Spaces.namespaces).map { NamespaceScope(name: $0.key) }
                if includingDefault { listed.insert(.default, at: 0) }
            }
            var results: [T] = []
            for scope in listed {
                results.append(try await body(scope, ScopedTransaction(raw, scope: scope, directory: locator)))
            }
            return results
        }
    }

    /// `each`, with each namespace's control record (`nil` if it has none).
    func eachControl<T: Sendable>(
        _ scopes: [NamespaceScope]? = nil, includingDefault: Bool = false,
        _ body: @escaping @Sendable (NamespaceScope, ControlState?, ScopedTransaction) async throws -> T
    ) async throws -> [T] {
        try await each(scopes, includingDefault: includingDefault) { scope, own in
            try await body(scope, try await own.get(Spaces.control, ControlState.key), own)
        }
    }
}
