import Synchronization

/// The namespaces this process knows of, by the tag their codes and tokens carry: how a value that
/// comes back without a prefix finds its world, and how the default namespace tells its own values
/// from another namespace's in the spaces they share. Filled and refreshed by `Namespaces`.
final class NamespaceDirectory: Sendable {
    private let names = Mutex<[UInt32: String]>([:])

    /// The namespace whose values carry `tag`.
    func name(ofTag tag: UInt32) -> String? {
        names.withLock { $0[tag] }
    }

    /// Whether a namespace other than the default exists.
    var hasNamespaces: Bool {
        names.withLock { !$0.isEmpty }
    }

    /// Replaces what is known with `scopes`.
    func replace(with scopes: some Sequence<NamespaceScope>) {
        let table = Dictionary(scopes.map { ($0.tag, $0.name) }, uniquingKeysWith: { first, _ in first })
        names.withLock { $0 = table }
    }

    /// Adds `scope`.
    func insert(_ scope: NamespaceScope) {
        _ = names.withLock { $0[scope.tag] = scope.name }
    }

    /// Forgets `scope`.
    func remove(_ scope: NamespaceScope) {
        _ = names.withLock { $0.removeValue(forKey: scope.tag) }
    }

    /// Whether a value carrying `tag` belongs to the namespace `scope`: its own tag, or for the
    /// default namespace any tag no other namespace has (values minted before namespaces existed).
    func owns(_ scope: NamespaceScope, tag: UInt32) -> Bool {
        if tag == scope.tag { return true }
        guard scope.isDefault else { return false }
        return name(ofTag: tag) == nil
    }
}
