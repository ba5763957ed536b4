import Foundation

/// A named family of entries in a store (consents, codes, the outbox, …) and the type of their values.
/// Every store keeps one table of `(space, key) → value`; the space says how a value is encoded.
struct StoreSpace<Value: Codable & Sendable>: Sendable, Hashable {
    /// The name written in the store.
    let name: String

    init(_ name: String) {
        self.name = name
    }
}
