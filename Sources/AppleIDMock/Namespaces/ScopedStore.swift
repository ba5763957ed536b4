#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The shared store as one namespace sees it: every step runs on a `ScopedTransaction`, and the
/// control record read is the namespace's. Housekeeping (claiming due work, the sweep) spans every
/// namespace, as the store does it. What only a `SharedStore` does spans every namespace too: it is
/// asked of `base`, not of this view.
struct ScopedStore: StateStore {
    /// The store every namespace shares.
    let base: any StateStore
    let scope: NamespaceScope
    let directory: NamespaceLocator

    func transaction<Result: Sendable>(_ body: @escaping @Sendable (any StateTransaction) async throws -> Result)
        async throws -> Result
    {
        let scope = scope
        let directory = directory
        return try await base.transaction { inner in
            try await body(ScopedTransaction(inner, scope: scope, directory: directory))
        }
    }

    func control(in space: String, ifChangedFrom known: Int64?) async throws -> (revision: Int64, value: ControlState?)
    {
        try await base.control(in: scope.storedName(space), ifChangedFrom: known)
    }

    func claimDue<Value>(
        _ space: StoreSpace<Value>, now: Date, leaseUntil: Date, limit: Int,
        mark: @escaping @Sendable (inout Value) -> Void
    ) async throws -> [(space: String, key: String, value: Value)] {
        try await base.claimDue(space, now: now, leaseUntil: leaseUntil, limit: limit, mark: mark)
    }

    func sweep(expiredBefore now: Date) async throws -> Int {
        try await base.sweep(expiredBefore: now)
    }

    var description: String { base.description }

    var watch: StoreWatch { base.watch }

    func entryCounts(_ spaces: [String]) async throws -> [String: Int] {
        let stored = Dictionary(spaces.map { (scope.storedName($0), $0) }, uniquingKeysWith: { first, _ in first })
        let counts = try await base.entryCounts(Array(stored.keys))
        return Dictionary(counts.map { (stored[$0.key] ?? $0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }
}
