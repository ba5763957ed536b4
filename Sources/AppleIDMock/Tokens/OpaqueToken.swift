/// Random opaque values in the shapes Apple's server uses (reference §0), e.g. a code
/// `c<32 hex>.0.<4 lowercase>.<22 base64url>`. The 128 random bits are the 32 hex digits; the
/// rest is spelled from them, so a value is its kind and 16 bytes (`TokenID`), which is how the
/// memory store keeps millions of them compactly.
enum OpaqueToken {
    /// What the value is; its first character.
    enum Kind: Character, Sendable, CaseIterable {
        case code = "c"
        case accessToken = "a"
        case refreshToken = "r"
    }

    /// The length of every value.
    static let length = 63

    private static let hex = Array("0123456789abcdef".utf8)
    private static let lower = Array("abcdefghijklmnopqrstuvwxyz".utf8)
    private static let url = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// A new random value of `kind` minted in the namespace tagged `tag` (0: the default namespace).
    /// 96 bits are random; the other 32 are the tag masked by a hash of them, so every value still
    /// looks random and `tag(of:)` tells the namespace from the value alone.
    static func make(_ kind: Kind, tag: UInt32 = 0) -> String {
        var generator = SystemRandomNumberGenerator()
        var id = TokenID(high: generator.next(), low: generator.next())
        if id.low == 0 { id.low = 1 }  // zero marks a free slot in the memory store
        id.high = UInt64(tag ^ mask(id)) << 32 | (id.high & 0xFFFF_FFFF)
        return string(kind, id)
    }

    /// The namespace tag of a value this type makes (see `make(_:tag:)`); `nil` for anything else.
    static func tag(of value: String) -> UInt32? {
        parse(value).map { tag(of: $0.id) }
    }

    /// The namespace tag carried by `id`.
    static func tag(of id: TokenID) -> UInt32 {
        UInt32(truncatingIfNeeded: id.high >> 32) ^ mask(id)
    }

    /// A hash of the 96 random bits of `id`, which hides the tag.
    private static func mask(_ id: TokenID) -> UInt32 {
        var mixer = SplitMix64(state: id.low ^ (id.high & 0xFFFF_FFFF) &* 0xD6E8_FEB8_6659_FD93)
        return UInt32(truncatingIfNeeded: mixer.next() >> 16)
    }

    /// The value of `kind` whose random part is `id`.
    static func string(_ kind: Kind, _ id: TokenID) -> String {
        String(unsafeUninitializedCapacity: length) { buffer in
            spell(kind, id, into: buffer)
            return length
        }
    }

    /// Writes the `length` bytes of the value of `kind` whose random part is `id`.
    private static func spell(_ kind: Kind, _ id: TokenID, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        buffer[0] = kind.rawValue.asciiValue ?? UInt8(ascii: "x")
        for index in 0..<16 {  // 32 hex digits from 16 bytes
            let byte = id.byte(index)
            buffer[1 + 2 * index] = hex[Int(byte >> 4)]
            buffer[2 + 2 * index] = hex[Int(byte & 0x0F)]
        }
        buffer[33] = UInt8(ascii: ".")
        buffer[34] = UInt8(ascii: "0")
        buffer[35] = UInt8(ascii: ".")
        var tail = SplitMix64(state: id.high ^ (id.low &* 0x9E37_79B9_7F4A_7C15))
        for index in 36..<40 { buffer[index] = lower[Int(tail.next() % UInt64(lower.count))] }
        buffer[40] = UInt8(ascii: ".")
        for index in 41..<length { buffer[index] = url[Int(tail.next() & 0x3F)] }
    }

    /// The kind and random part of `value`, when it is exactly a value this type makes; `nil` for
    /// anything else (another shape, upper-case hex, a changed tail).
    static func parse(_ value: String) -> (kind: Kind, id: TokenID)? {
        var value = value
        return value.withUTF8 { bytes -> (Kind, TokenID)? in
            guard bytes.count == length, let kind = Kind(rawValue: Character(UnicodeScalar(bytes[0]))) else {
                return nil
            }
            var high: UInt64 = 0
            var low: UInt64 = 0
            for index in 0..<32 {
                guard let digit = hexValue(bytes[1 + index]) else { return nil }
                if index < 16 { high = high << 4 | UInt64(digit) } else { low = low << 4 | UInt64(digit) }
            }
            let id = TokenID(high: high, low: low)
            guard id != .zero else { return nil }
            // Spelled again on the stack (a lookup allocates nothing) and compared.
            let canonical = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { buffer in
                spell(kind, id, into: buffer)
                return buffer.elementsEqual(bytes)
            }
            return canonical ? (kind, id) : nil
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}

/// The 128 random bits of an opaque value.
struct TokenID: Hashable, Sendable {
    var high: UInt64
    var low: UInt64

    static let zero = TokenID(high: 0, low: 0)

    /// Byte `index` (0...15), most significant first.
    func byte(_ index: Int) -> UInt8 {
        index < 8
            ? UInt8(truncatingIfNeeded: high >> (56 - 8 * index)) : UInt8(truncatingIfNeeded: low >> (120 - 8 * index))
    }
}
