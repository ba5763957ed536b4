#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `application/x-www-form-urlencoded` parameters (a body or a query string), keeping duplicates so
/// they can be refused as Apple refuses them.
package struct FormParameters: Sendable {
    /// The name/value pairs in order.
    let pairs: [(name: String, value: String)]

    /// Why a form could not be read.
    enum Problem: Error, Sendable, Equatable {
        /// A byte sequence that is not valid percent-encoding or UTF-8.
        case malformedEncoding
        /// A parameter sent more than once.
        case duplicate(String)
    }

    /// Parses `name=value&…`; `+` is a space.
    init(encoded text: Substring) throws(Problem) {
        var text = text
        let pairs = text.withUTF8 { bytes -> [(name: String, value: String)]? in
            var pairs: [(name: String, value: String)] = []
            var start = 0
            while start <= bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
                if end > start {
                    let field = UnsafeBufferPointer(rebasing: bytes[start..<end])
                    let equals = field.firstIndex(of: UInt8(ascii: "=")) ?? field.count
                    guard let name = Self.decode(UnsafeBufferPointer(rebasing: field[..<equals])),
                        let value = Self.decode(
                            UnsafeBufferPointer(rebasing: field[min(equals + 1, field.count)...]))
                    else { return nil }
                    pairs.append((name, value))
                }
                start = end + 1
            }
            return pairs
        }
        guard let pairs else { throw .malformedEncoding }
        self.pairs = pairs
    }

    init(encoded text: String) throws(Problem) {
        try self.init(encoded: text[...])
    }

    init(pairs: [(name: String, value: String)]) {
        self.pairs = pairs
    }

    /// Percent-decodes one name or value (`+` is a space); `nil` for a bad escape or invalid UTF-8.
    static func decode(_ component: Substring) -> String? {
        var component = component
        return component.withUTF8 { decode($0) }
    }

    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return String(decoding: bytes, as: UTF8.self)  // a slice of a String: valid UTF-8
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "+"):
                decoded.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard index + 2 <= bytes.count, let high = hexValue(bytes[index]), let low = hexValue(bytes[index + 1])
                else { return nil }
                index += 2
                decoded.append(high << 4 | low)
            default:
                decoded.append(byte)
            }
        }
        return String(validating: decoded, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The single value of `name` (`nil` if absent); throws if it was sent twice.
    func value(_ name: String) throws(Problem) -> String? {
        let values = pairs.filter { $0.name == name }
        guard values.count <= 1 else { throw .duplicate(name) }
        return values.first?.value
    }

    /// The first value of `name`, duplicates or not (for the journal, which records what was sent).
    func first(_ name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// The value of `name`, treating an empty value as absent.
    func nonEmpty(_ name: String) throws(Problem) -> String? {
        guard let value = try value(name), !value.isEmpty else { return nil }
        return value
    }

    /// The first parameter name that appears more than once. A request has a handful of parameters,
    /// which compare pairwise faster than a set is built (this runs on every Apple call).
    var firstDuplicate: String? {
        guard pairs.count > 16 else {
            for index in pairs.indices.dropFirst()
            where pairs[..<index].contains(where: { $0.name == pairs[index].name }) {
                return pairs[index].name
            }
            return nil
        }
        var seen = Set<String>()
        return pairs.first { !seen.insert($0.name).inserted }?.name
    }

    /// These parameters followed by those of `other` whose names are not already present.
    func merging(fallback other: FormParameters) -> FormParameters {
        let names = Set(pairs.map(\.name))
        return FormParameters(pairs: pairs + other.pairs.filter { !names.contains($0.name) })
    }

    /// Encodes pairs as a query string or form body (public for the `AppleIDMockTesting` kit): every
    /// byte of a name or value outside RFC 3986's unreserved set as `%XX`, as Foundation's
    /// `addingPercentEncoding` does, byte by byte (Foundation's went through `CFString` and UTF-16,
    /// and every authorize answer spells its redirect with this).
    package static func encode(_ pairs: [(String, String)]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(pairs.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 2 })
        for (index, pair) in pairs.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "&")) }
            escape(pair.0, into: &bytes)
            bytes.append(UInt8(ascii: "="))
            escape(pair.1, into: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text` as one name or value of a query string or form body.
    static func encodeComponent(_ text: String) -> String {
        var bytes: [UInt8] = []
        escape(text, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func escape(_ text: String, into bytes: inout [UInt8]) {
        for byte in text.utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append((byte >> 4).hexDigit(uppercase: true))
                bytes.append(byte.hexDigit(uppercase: true))
            }
        }
    }

    /// `A`-`Z`, `a`-`z`, `0`-`9`, `-`, `.`, `_`, `~`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
