import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where one namespace's state lives in the shared store. Each namespace has its own copy of every
/// space, stored as `{name}/{space}` (the default namespace's copy is the bare name, as before
/// namespaces existed), except the spaces keyed by codes and tokens, which all namespaces share:
/// each value carries its namespace's `tag` (`OpaqueToken`). Index groups are prefixed the same way.
struct NamespaceScope: Sendable, Hashable {
    /// The namespace's name.
    let name: String
    /// The tag its codes and tokens carry: 0 for the default namespace.
    let tag: UInt32

    /// The default namespace: bare space names, tag 0.
    static let `default` = NamespaceScope(name: NamespaceName.default, tag: 0)

    /// The scope of the namespace `name` (its tag derived from the name).
    init(name: String) {
        self.init(name: name, tag: name == NamespaceName.default ? 0 : Self.tag(for: name))
    }

    private init(name: String, tag: UInt32) {
        self.name = name
        self.tag = tag
    }

    /// Whether this is the default namespace.
    var isDefault: Bool { tag == 0 }

    /// The path prefix of the namespace's URLs: `/ns/{name}`, none for the default namespace.
    var pathPrefix: String { isDefault ? "" : NamespaceName.pathPrefix(name) }

    /// The stored name of this namespace's copy of the space `space` (`StoredSpaceName`).
    func storedName(_ space: String) -> String {
        StoredSpaceName.qualified(space, in: storedNamespace)
    }

    /// The stored name of an index group.
    func storedGroup(_ group: String) -> String {
        StoredSpaceName.qualified(group, in: storedNamespace)
    }

    /// The namespace as stored names name it: none for the default namespace.
    private var storedNamespace: String? { isDefault ? nil : name }

    /// The namespace a stored space name belongs to.
    static func namespace(ofStoredSpace stored: String) -> String {
        StoredSpaceName(parsing: stored).namespace ?? NamespaceName.default
    }

    /// The tags computed so far, by name: making a namespace compares its tag with every other's,
    /// and reading the records again rebuilds the directory, so each name is hashed once, not once
    /// per namespace made (with many namespaces, hashing them all again would slow making one).
    private static let tags = BoundedCache<String, UInt32>(capacity: 4 * Namespaces.limit)

    /// The tag of the namespace `name`: 32 bits of a SHA-256 of it, never 0 (the default's).
    static func tag(for name: String) -> UInt32 {
        tags.value(for: name) { hashedTag(for: name) }
    }

    private static func hashedTag(for name: String) -> UInt32 {
        let digest = Array(SHA256.hash(data: Data("apple-id-mock/namespace\u{0}\(name)".utf8)))
        let tag = digest.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return tag == 0 ? 1 : tag
    }
}
