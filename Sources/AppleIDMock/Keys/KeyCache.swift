#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Generated keys parsed once per process, by `kid` (parsing a PEM costs milliseconds). A `kid` is
/// random and never reused, so an entry never goes stale; past its capacity the cache starts over.
final class KeyCache: Sendable {
    /// More than a few namespaces' rosters hold, so steady rosters are parsed once.
    private let keys = BoundedCache<String, SigningKey>(capacity: 32 * KeyRoster.capacity)
    /// The bundled keys under the `kid`s namespaces give them, by that `kid`.
    private let aliases = BoundedCache<String, SigningKey>(capacity: 4096)

    /// The parsed key for `kid`, parsing `pem` on the first call.
    func key(_ kid: String, pem: () async throws -> String?) async throws -> SigningKey? {
        if let known = keys[kid] { return known }
        guard let pem = try await pem() else { return nil }
        let key = try SigningKey(kid: kid, pem: pem)
        keys.insert(key, for: kid)
        return key
    }

    /// The bundled key of `ring` that a namespace publishes as `kid` (`NamespaceScope.bundledKid`).
    func bundledKey(_ kid: String, in scope: NamespaceScope, ring: SigningKeyRing) -> SigningKey? {
        guard !scope.isDefault else { return ring.key(kid) }
        if let known = aliases[kid] { return known }
        guard let original = ring.keys.first(where: { scope.bundledKid($0.kid) == kid }),
            let alias = try? SigningKey(aliasing: original, kid: kid)
        else { return nil }
        aliases.insert(alias, for: kid)
        return alias
    }
}
