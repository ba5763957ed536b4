#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A named family of entries in a store (consents, codes, the outbox, …) and the type of their values.
/// Every store keeps one table of `(space, key) → value`; the space says how a value is encoded, and
/// whether a reset empties it. A space is written only once it is registered (`Spaces.registered`).
struct StoreSpace<Value: Codable & Sendable>: Sendable, Hashable {
    /// The name written in the store.
    let name: String
    /// What a reset or a scenario switch does to the space.
    let onReset: SpaceReset
    /// How its keys are shared between namespaces.
    let keys: SpaceKeys
    /// The waiting reads a change of the space wakes (`nil`: none wait on it).
    let wakes: StoreWatch.Topic?
    /// The name a namespace's count of the space is shown under (`GET /__admin/namespaces`), if it
    /// is one a tester watches.
    let shown: String?

    init(
        _ name: String, onReset: SpaceReset, keys: SpaceKeys = .perNamespace, wakes: StoreWatch.Topic? = nil,
        shown: String? = nil
    ) {
        self.name = name
        self.onReset = onReset
        self.keys = keys
        self.wakes = wakes
        self.shown = shown
    }

    /// The same space stored under `name` (a namespace's copy, see `NamespaceScope`).
    func stored(as name: String) -> StoreSpace {
        StoreSpace(name, onReset: onReset, keys: keys, wakes: wakes, shown: shown)
    }
}

/// How a space's entries are divided between namespaces.
enum SpaceKeys: Sendable, Hashable {
    /// Each namespace has its own copy of the space (`team-a/consent`; the default namespace's is the
    /// bare name).
    case perNamespace
    /// One space for all: the keys are codes and tokens the mock issued, unique everywhere, each
    /// carrying the tag of the namespace that minted it (`OpaqueToken`).
    case issuedValues
}

/// What a reset or a scenario switch does to a space.
enum SpaceReset: Sendable, Hashable {
    /// Empties it: it belongs to the session (consents, codes, tokens, events, the mailbox, …).
    case clears
    /// Leaves it: it outlives sessions (the control record, uploaded scenarios, keys, the journal).
    case keeps
}
