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

    /// A value put in a space of another type (a programming error, reported rather than trapped).
    struct WrongType: Error, CustomStringConvertible {
        var space: String
        var description: String { "a value of the wrong type was written to space \(space)" }
    }
}
