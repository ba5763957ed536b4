/// The `kid`s the bundled key pairs go by in each namespace. The default namespace publishes them
/// under their own (the PEM files' names). Every other namespace starts with the shared kids: one
/// per bundled key, the same in every namespace, on every replica and in every run, so namespaces
/// that never touch their keys add three keys to the unprefixed `/auth/keys`, however many there
/// are. A namespace takes a kid of its own for a bundled key when it unpublishes it (copy on
/// write), so the shared kid stays published for the namespaces that keep it.
extension NamespaceScope {
    /// The `kid` every namespace but the default gives the bundled key `kid` until it changes it:
    /// derived from the key alone, so it is never the default namespace's nor a namespace's own.
    static func sharedKid(_ kid: String) -> String {
        sharedKids.value(for: kid) { IdentifierDerivation.token(purpose: "shared-kid", length: 10, kid) }
    }

    /// The `kid` the bundled key `kid` has once this namespace has one of its own for it: its own
    /// name in the default namespace, and elsewhere one derived from the namespace and the key (the
    /// key pair is the same).
    func ownKid(_ kid: String) -> String {
        guard !isDefault else { return kid }
        return Self.ownKids.value(for: name + "\u{0}" + kid) {
            IdentifierDerivation.token(purpose: "kid", length: 10, name, kid)
        }
    }

    /// The bundled key of `ring` that `kid` names in this namespace: by its file's name in the
    /// default namespace; elsewhere by the shared `kid` or the namespace's own.
    func bundledKey(named kid: String, in ring: SigningKeyRing) -> SigningKey? {
        guard !isDefault else { return ring.key(kid) }
        return ring.keys.first { Self.sharedKid($0.kid) == kid || ownKid($0.kid) == kid }
    }

    /// The namespace's own `kid` for the bundled key that goes by the shared `kid`; `nil` when `kid`
    /// is not a shared one (and always in the default namespace, which has none).
    func ownKid(replacingShared kid: String, in ring: SigningKeyRing) -> String? {
        guard !isDefault, let key = ring.keys.first(where: { Self.sharedKid($0.kid) == kid }) else { return nil }
        return ownKid(key.kid)
    }

    /// The shared `kid`s, derived once per process.
    private static let sharedKids = BoundedCache<String, String>(capacity: 64)

    /// Each namespace's own `kid`s for the bundled keys, derived once per process.
    private static let ownKids = BoundedCache<String, String>(capacity: 8 * Namespaces.limit)
}
