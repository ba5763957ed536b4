import Foundation

/// A named family of entries in a store (consents, codes, the outbox, …) and the type of their values.
/// Every store keeps one table of `(space, key) → value`; the space says how a value is encoded, and
/// whether a reset empties it. A space is written only once it is registered (`Spaces.registered`).
struct StoreSpace<Value: Codable & Sendable>: Sendable, Hashable {
    /// The name written in the store.
    let name: String
    /// What a reset or a scenario switch does to the space.
    let onReset: SpaceReset

    init(_ name: String, onReset: SpaceReset) {
        self.name = name
        self.onReset = onReset
    }
}

/// What a reset or a scenario switch does to a space.
enum SpaceReset: Sendable, Hashable {
    /// Empties it: it belongs to the session (consents, codes, tokens, events, the mailbox, …).
    case clears
    /// Leaves it: it outlives sessions (the control record, uploaded scenarios, keys, the journal).
    case keeps
}
