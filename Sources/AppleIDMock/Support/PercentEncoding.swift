/// Percent-encoding of a URL path segment, as Foundation's `addingPercentEncoding(withAllowedCharacters:
/// .urlPathAllowed.subtracting(["/"]))` writes it, without Foundation's `CharacterSet`.
enum PercentEncoding {
    /// `text` with every UTF-8 byte outside RFC 3986's path characters (less `/`) written `%XX`.
    static func pathSegment(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if isAllowedInSegment(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return encoded
    }

    /// Letters, digits and `!$&'()*+,-.:=@_~` (Foundation's `urlPathAllowed` without `/`).
    private static func isAllowedInSegment(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!$&'()*+,-.:=@_~".utf8.contains(byte)
        }
    }
}
