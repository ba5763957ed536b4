/// A type of the token path whose JSON is written member by member (`AppleJSONWriter`) rather than
/// through `JSONEncoder`: the same bytes `TokenMinter`'s encoder writes (keys sorted, `/`
/// unescaped), without the encoder's tree of boxed values, its sort and their allocations, which
/// were a visible share of every token answer.
/// `Encodable` stays the reference: tests hold each type's bytes to its encoder's.
protocol AppleJSONObject: Encodable {
    /// Writes the members that are present, in the order of their keys' bytes.
    func writeMembers(to writer: inout AppleJSONWriter)
}

extension AppleJSONObject {
    /// The object's JSON, as `TokenMinter.encode` would write it.
    var appleJSON: [UInt8] {
        var writer = AppleJSONWriter()
        writeMembers(to: &writer)
        return writer.finish()
    }
}

/// Writes one flat JSON object as Foundation's `JSONEncoder` does with `.sortedKeys` and
/// `.withoutEscapingSlashes`: `"` and `\` escaped, `\b \f \n \r \t` by name, other control
/// characters as `\u00xx` (lowercase hex), everything else (DEL, non-ASCII) as it is. The caller
/// gives the members in sorted order (checked in debug builds).
struct AppleJSONWriter {
    private var bytes: [UInt8] = []
    /// The last key written, to check the order in debug builds.
    private var lastKey: StaticString?

    /// A writer with room for `capacity` bytes.
    init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// `"key":"value"`, unless `value` is `nil`.
    mutating func member(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        writeKey(key)
        writeString(value)
    }

    /// `"key":value` (a decimal integer), unless `value` is `nil`.
    mutating func member(_ key: StaticString, _ value: Int?) {
        guard let value else { return }
        writeKey(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    /// `"key":true` or `false`, unless `value` is `nil`.
    mutating func member(_ key: StaticString, _ value: Bool?) {
        guard let value else { return }
        writeKey(key)
        bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
    }

    /// The object's bytes, closed.
    consuming func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let hex = Array("0123456789abcdef".utf8)

    private mutating func writeKey(_ key: StaticString) {
        assert(
            lastKey.map { Self.precedes($0, key) } ?? true,
            "AppleJSONWriter: \(key) written after \(lastKey.map { "\($0)" } ?? "")")
        if lastKey != nil { bytes.append(UInt8(ascii: ",")) }
        lastKey = key
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    /// Whether `first` sorts before `second` by their bytes, as the encoder sorts these keys.
    private static func precedes(_ first: StaticString, _ second: StaticString) -> Bool {
        first.withUTF8Buffer { a in second.withUTF8Buffer { b in a.lexicographicallyPrecedes(b) } }
    }

    private mutating func writeString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 0x0F)],
                ])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
