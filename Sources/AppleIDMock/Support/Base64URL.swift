import Foundation

extension Data {
    /// Unpadded base64url, as JOSE writes it.
    var base64URLEncoded: String {
        // One pass over the base64 bytes: `+` → `-`, `/` → `_`, padding dropped.
        var bytes = base64EncodedData()
        var length = bytes.count
        while length > 0, bytes[length - 1] == UInt8(ascii: "=") { length -= 1 }
        bytes.removeSubrange(length...)
        for index in bytes.indices {
            switch bytes[index] {
            case UInt8(ascii: "+"): bytes[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): bytes[index] = UInt8(ascii: "_")
            default: break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes unpadded (or padded) base64url; `nil` if it is not base64url.
    init?(base64URLEncoded text: some StringProtocol) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.contains("=") || text.hasSuffix("=") else { return nil }
        base64 = base64.replacingOccurrences(of: "=", with: "")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }
}
