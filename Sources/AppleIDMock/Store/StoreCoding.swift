#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The JSON coding every durable store uses for values (dates as fractional epoch seconds).
enum StoreCoding {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()

    /// `value` as JSON text: written directly when its type can (`StoreJSONWritable`), else by `encoder`.
    static func text<Value: Encodable>(_ value: Value) throws -> String {
        if let writable = value as? any StoreJSONWritable { return StoreJSONText.encode(writable) }
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// A value put in a space of another type (a programming error, reported rather than trapped).
    struct WrongType: Error, CustomStringConvertible {
        var space: String
        var description: String { "a value of the wrong type was written to space \(space)" }
    }
}
