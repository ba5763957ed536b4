#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the namespaces other than the default may publish in the unprefixed `/auth/keys`, as read
/// from their control records: the bundled keys under their shared `kid`s while one namespace
/// keeps them, and the keys of each namespace that changed its own. Which of those are published
/// is decided when the JWKS is built, each on its namespace's clock (a rotated key's grace period).
struct OtherNamespacesKeys: Sendable {
    /// A namespace that changed its keys.
    struct Changed: Sendable {
        /// Its control record, for its clock.
        var control: ControlState
        /// Its keys marked published (some may have retired since), oldest first.
        var keys: [(entry: KeyRoster.Entry, key: SigningKey)]
    }

    /// The bundled keys under their shared `kid`s, all published: empty when every namespace
    /// changed its keys (or there is none).
    var shared: [SigningKey] = []
    /// The namespaces that changed their keys.
    var changed: [Changed] = []

    /// The keys published now, given the base clock's `base`: the shared ones first, each `kid`
    /// once, with no end date (checked on their namespace's clock).
    func published(base: Date) -> [(entry: KeyRoster.Entry, key: SigningKey)] {
        var keys = shared.map { (entry: KeyRoster.Entry(kid: $0.kid, origin: .bundled, published: true), key: $0) }
        var seen = Set(keys.map(\.entry.kid))
        for namespace in changed {
            let now = namespace.control.now(base: base)
            for var found in namespace.keys where found.entry.isPublished(at: now) {
                found.entry.retiresAt = nil
                if seen.insert(found.entry.kid).inserted { keys.append(found) }
            }
        }
        return keys
    }
}
