/// Lowercase hexadecimal and zero-padded decimal text without Foundation's `String(format:)`,
/// which costs microseconds per call on the request path.
extension Sequence<UInt8> {
    /// The bytes as lowercase hex, two digits each.
    var lowercaseHex: String {
        let digits: StaticString = "0123456789abcdef"
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * 2)
        digits.withUTF8Buffer { digits in
            for byte in self {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: text, as: UTF8.self)
    }
}

extension BinaryInteger {
    /// The number in decimal, padded with zeros on the left to `width` digits.
    func zeroPadded(_ width: Int) -> String {
        let digits = String(self)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
