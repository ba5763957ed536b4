#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A space without its value type: how a store that writes bytes decodes and encodes its values.
struct AnyStoreSpace: Sendable {
    let name: String
    /// Whether a reset or a scenario switch empties the space.
    let clearedOnReset: Bool
    /// How its keys are shared between namespaces.
    let keys: SpaceKeys
    /// The waiting reads a change of the space wakes.
    let wakes: StoreWatch.Topic?
    /// The name a namespace's count of it is shown under, if any.
    let shown: String?
    /// Whether its values are bare markers (`Marker`: a spent code, a deleted account).
    let holdsMarkers: Bool
    let decode: @Sendable (Data) throws -> any Sendable
    let encode: @Sendable (any Sendable) throws -> Data
    /// The same JSON as `encode`, as text: written directly for the values written most
    /// (`StoreJSONWritable`), through `StoreCoding.encoder` for the others.
    let encodeText: @Sendable (any Sendable) throws -> String
    /// Deletes, in one step, the space's entries whose key passes `matching`.
    let deleteMatching:
        @Sendable (_ transaction: any StateTransaction, _ matching: (String) -> Bool) async throws -> Void

    init<Value>(_ space: StoreSpace<Value>) {
        name = space.name
        clearedOnReset = space.onReset == .clears
        keys = space.keys
        wakes = space.wakes
        shown = space.shown
        holdsMarkers = Value.self == Marker.self
        deleteMatching = { transaction, matching in
            for (key, _) in try await transaction.list(space, prefix: "") where matching(key) {
                try await transaction.delete(space, key)
            }
        }
        decode = { data in try StoreCoding.decoder.decode(Value.self, from: data) }
        encode = { value in
            guard let typed = value as? Value else { throw StoreCoding.WrongType(space: space.name) }
            return try StoreCoding.encoder.encode(typed)
        }
        let name = space.name
        encodeText = { value in
            guard let typed = value as? Value else { throw StoreCoding.WrongType(space: name) }
            return try StoreCoding.text(typed)
        }
    }
}
