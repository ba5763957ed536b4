/// Lowercase hexadecimal and zero-padded decimal text without Foundation's `String(format:)`,
/// which costs microseconds per call on the request path.
extension Sequence<UInt8> {
    /// The bytes as lowercase hex, two digits each.
    var lowercaseHex: String {
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            text.append((byte >> 4).hexDigit())
            text.append(byte.hexDigit())
        }
        return String(decoding: text, as: UTF8.self)
    }
}

extension UInt8 {
    /// The ASCII hex digit of the low four bits, lowercase unless `uppercase`.
    func hexDigit(uppercase: Bool = false) -> UInt8 {
        let nibble = self & 0x0F
        guard nibble >= 10 else { return UInt8(ascii: "0") + nibble }
        return (uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")) + nibble - 10
    }
}

extension BinaryInteger {
    /// The number in decimal, padded with zeros on the left to `width` digits.
    func zeroPadded(_ width: Int) -> String {
        let digits = String(self)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
