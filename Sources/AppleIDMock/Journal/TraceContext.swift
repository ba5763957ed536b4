/// W3C Trace Context (`traceparent: 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`): a
/// header an incoming request carries is kept in its journal entry as sent (when well formed), and
/// each notification the mock posts carries one of its own, so a backend's trace and the journal
/// can be joined.
enum TraceContext {
    /// The header's name.
    static let header = "traceparent"

    /// `value` if it is a well-formed `traceparent` (version `00`, or a later one with at least the
    /// same fields; trace and parent ids not all zeros), else `nil`.
    static func valid(_ value: String) -> String? {
        let bytes = Array(value.utf8)
        guard bytes.count >= 55, bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"),
            bytes[52] == UInt8(ascii: "-")
        else { return nil }
        let version = bytes[0..<2]
        guard version.allSatisfy(isLowerHex), version != [UInt8(ascii: "f"), UInt8(ascii: "f")] else { return nil }
        if version == [UInt8(ascii: "0"), UInt8(ascii: "0")], bytes.count != 55 { return nil }
        if bytes.count > 55, bytes[55] != UInt8(ascii: "-") { return nil }
        let traceId = bytes[3..<35]
        let parentId = bytes[36..<52]
        let flags = bytes[53..<55]
        guard traceId.allSatisfy(isLowerHex), parentId.allSatisfy(isLowerHex), flags.allSatisfy(isLowerHex),
            traceId.contains(where: { $0 != UInt8(ascii: "0") }), parentId.contains(where: { $0 != UInt8(ascii: "0") })
        else { return nil }
        return value
    }

    /// The trace id of a well-formed `traceparent`.
    static func traceId(of traceparent: String) -> String? {
        guard valid(traceparent) != nil else { return nil }
        return String(traceparent.dropFirst(3).prefix(32))
    }

    /// A new `traceparent` (version 00, sampled) with a random trace id and parent id.
    static func make() -> String {
        let trace = (UInt64.random(in: 1...UInt64.max), UInt64.random(in: 0...UInt64.max))
        let span = UInt64.random(in: 1...UInt64.max)
        return "00-\(hex16(trace.0))\(hex16(trace.1))-\(hex16(span))-01"
    }

    private static func hex16(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
