import Foundation

/// A space without its value type: how a store that writes bytes decodes and encodes its values.
struct AnyStoreSpace: Sendable {
    let name: String
    /// Whether a reset or a scenario switch empties the space.
    let clearedOnReset: Bool
    let decode: @Sendable (Data) throws -> any Sendable
    let encode: @Sendable (any Sendable) throws -> Data

    init<Value>(_ space: StoreSpace<Value>) {
        name = space.name
        clearedOnReset = space.onReset == .clears
        decode = { data in try StoreCoding.decoder.decode(Value.self, from: data) }
        encode = { value in
            guard let typed = value as? Value else { throw StoreCoding.WrongType(space: space.name) }
            return try StoreCoding.encoder.encode(typed)
        }
    }
}
