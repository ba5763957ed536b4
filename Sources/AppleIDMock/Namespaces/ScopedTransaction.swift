#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One step on the shared store as one namespace sees it: its own copy of each space, its own index
/// groups, and in the spaces of codes and tokens only the values it minted (`NamespaceScope`).
final class ScopedTransaction: StateTransaction {
    private let inner: any StateTransaction
    private let scope: NamespaceScope
    private let directory: NamespaceLocator

    init(_ inner: any StateTransaction, scope: NamespaceScope, directory: NamespaceLocator) {
        self.inner = inner
        self.scope = scope
        self.directory = directory
    }

    /// The namespace's copy of `space`.
    private func stored<Value>(_ space: StoreSpace<Value>) -> StoreSpace<Value> {
        space.keys == .perNamespace && !scope.isDefault ? space.stored(as: scope.storedName(space.name)) : space
    }

    /// The stored name of the registered space `name`.
    private func storedName(_ name: String) -> String {
        Spaces.all[name]?.keys == .issuedValues ? name : scope.storedName(name)
    }

    /// Whether the entry at `key` of `space` is the namespace's.
    private func owns<Value>(_ space: StoreSpace<Value>, _ key: String) -> Bool {
        space.keys == .perNamespace || owns(issued: key)
    }

    /// Whether a code or token is one the namespace minted.
    private func owns(issued key: String) -> Bool {
        guard let tag = OpaqueToken.tag(of: key) else { return scope.isDefault }
        return directory.owns(scope, tag: tag)
    }

    func get<Value>(_ space: StoreSpace<Value>, _ key: String) async throws -> Value? {
        guard owns(space, key) else { return nil }
        return try await inner.get(stored(space), key)
    }

    func put<Value>(_ space: StoreSpace<Value>, _ key: String, _ value: Value, index: EntryIndex) async throws {
        var index = index
        index.group = index.group.map(scope.storedGroup)
        try await inner.put(stored(space), key, value, index: index)
    }

    func putAll<Value>(_ space: StoreSpace<Value>, _ entries: [(key: String, value: Value)]) async throws {
        try await inner.putAll(stored(space), entries)
    }

    func delete<Value>(_ space: StoreSpace<Value>, _ key: String) async throws {
        guard owns(space, key) else { return }
        try await inner.delete(stored(space), key)
    }

    func list<Value>(_ space: StoreSpace<Value>, prefix: String) async throws -> [(key: String, value: Value)] {
        let entries = try await inner.list(stored(space), prefix: prefix)
        guard space.keys == .issuedValues else { return entries }
        return entries.filter { owns(issued: $0.key) }
    }

    func count<Value>(_ space: StoreSpace<Value>) async throws -> Int {
        guard space.keys == .perNamespace else { return try await list(space, prefix: "").count }
        return try await inner.count(stored(space))
    }

    func deleteGroup(_ group: String, in spaces: [String]) async throws {
        try await inner.deleteGroup(scope.storedGroup(group), in: spaces.map(storedName))
    }

    func clear(_ spaces: [String]) async throws {
        for name in spaces { try Spaces.require(name) }
        let shared = spaces.filter { Spaces.all[$0]?.keys == .issuedValues }
        let own = spaces.filter { Spaces.all[$0]?.keys != .issuedValues }
        if !own.isEmpty { try await inner.clear(own.map(scope.storedName)) }
        guard !shared.isEmpty else { return }
        // The default namespace alone in the store: its values are all there is.
        if scope.isDefault, !directory.hasNamespaces { return try await inner.clear(shared) }
        for name in shared {
            try await Spaces.all[name]?.deleteMatching(inner) { owns(issued: $0) }
        }
    }

    func prune<Value>(_ space: StoreSpace<Value>, keep: Int) async throws {
        try await inner.prune(stored(space), keep: keep)
    }
}
