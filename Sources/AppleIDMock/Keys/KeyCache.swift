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
    /// The bundled keys under the `kid`s namespaces give them (shared or their own), by that `kid`.
    private let aliases = BoundedCache<String, SigningKey>(capacity: 4096)

    /// The parsed key for `kid`, parsing `pem` on the first call.
    func key(_ kid: String, pem: () async throws -> String?) async throws -> SigningKey? {
        if let known = keys[kid] { return known }
        guard let pem = try await pem() else { return nil }
        let key = try SigningKey(kid: kid, pem: pem)
        keys.insert(key, for: kid)
        return key
    }

    /// The bundled key of `ring` that `kid` names in `scope` (`NamespaceScope.bundledKey(named:in:)`),
    /// under that `kid`.
    func bundledKey(_ kid: String, in scope: NamespaceScope, ring: SigningKeyRing) -> SigningKey? {
        guard !scope.isDefault else { return ring.key(kid) }
        if let known = aliases[kid] { return known }
        guard let original = scope.bundledKey(named: kid, in: ring) else { return nil }
        return alias(of: original, as: kid)
    }

    /// The bundled keys of `ring` under their shared `kid`s (`NamespaceScope.sharedKid`).
    func sharedKeys(_ ring: SigningKeyRing) -> [SigningKey] {
        ring.keys.compactMap { original in
            let kid = NamespaceScope.sharedKid(original.kid)
            return aliases[kid] ?? alias(of: original, as: kid)
        }
    }

    private func alias(of original: SigningKey, as kid: String) -> SigningKey? {
        guard let alias = try? SigningKey(aliasing: original, kid: kid) else { return nil }
        aliases.insert(alias, for: kid)
        return alias
    }
}
