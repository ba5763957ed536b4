#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A value a store writes often (one per authorize) whose JSON text is written directly, as
/// `StoreCoding.encoder` writes it (sorted keys, unescaped slashes, dates as epoch seconds, absent
/// optionals left out), without building the encoder's tree of boxed values. The SQLite journal
/// encodes one code and one journal entry per authorize, and `JSONEncoder` was a costly part of it.
/// `StoreJSONTextTests` checks each conformance against `StoreCoding.encoder` on every field.
protocol StoreJSONWritable {
    /// Writes the value as one JSON object.
    func writeStoreJSON(to writer: inout StoreJSONText)
}

/// JSON text written field by field: one object at a time, its keys given in sorted order.
struct StoreJSONText {
    private(set) var text = ""
    /// Whether the object being written has no field yet (no comma before the next).
    private var empty = true

    init(capacity: Int = 256) {
        text.reserveCapacity(capacity)
    }

    /// `value` as JSON text.
    static func encode(_ value: some StoreJSONWritable) -> String {
        var writer = StoreJSONText()
        value.writeStoreJSON(to: &writer)
        return writer.text
    }

    /// Writes an object whose fields `body` writes (keys in sorted order, as the encoder sorts them).
    mutating func object(_ body: (inout StoreJSONText) -> Void) {
        text.append("{")
        empty = true
        body(&self)
        text.append("}")
        empty = false
    }

    mutating func field(_ key: StaticString, _ value: String) {
        name(key)
        string(value)
    }

    mutating func field(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        field(key, value)
    }

    mutating func field(_ key: StaticString, _ value: Int) {
        name(key)
        text.append(String(value))
    }

    mutating func field(_ key: StaticString, _ value: Int?) {
        guard let value else { return }
        field(key, value)
    }

    mutating func field(_ key: StaticString, _ value: Date) {
        name(key)
        number(value.timeIntervalSince1970)
    }

    mutating func field(_ key: StaticString, _ value: Date?) {
        guard let value else { return }
        field(key, value)
    }

    /// A dictionary of strings, as the encoder writes one: an object with its keys sorted.
    mutating func field(_ key: StaticString, _ value: [String: String]?) {
        guard let value else { return }
        name(key)
        text.append("{")
        var first = true
        for (entryKey, entryValue) in value.sorted(by: { $0.key < $1.key }) {
            if !first { text.append(",") }
            first = false
            string(entryKey)
            text.append(":")
            string(entryValue)
        }
        text.append("}")
    }

    private mutating func name(_ key: StaticString) {
        if !empty { text.append(",") }
        empty = false
        text.append("\"")
        key.withUTF8Buffer { text.append(String(decoding: $0, as: UTF8.self)) }
        text.append("\":")
    }

    /// A double as the encoder writes it: the shortest text that reads back as the same number,
    /// without a fraction when it has none.
    private mutating func number(_ value: Double) {
        if value.rounded(.towardZero) == value, abs(value) < 1e15 {
            text.append(String(Int64(value)))
        } else {
            text.append(value.description)
        }
    }

    /// A JSON string: quotes, backslashes and control characters escaped, `/` and non-ASCII as is.
    private mutating func string(_ value: String) {
        text.append("\"")
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            text.append(value)
        } else {
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": text.append("\\\"")
                case "\\": text.append("\\\\")
                case "\n": text.append("\\n")
                case "\r": text.append("\\r")
                case "\t": text.append("\\t")
                case "\u{08}": text.append("\\b")
                case "\u{0C}": text.append("\\f")
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    text.append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
                default: text.unicodeScalars.append(scalar)
                }
            }
        }
        text.append("\"")
    }
}
