#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Data {
    /// Unpadded base64url, as JOSE writes it.
    var base64URLEncoded: String {
        withUnsafeBytes { Base64URL.encode($0) }
    }

    /// Decodes unpadded (or padded) base64url; `nil` if it is not base64url.
    init?(base64URLEncoded text: some StringProtocol) {
        var base64 = String(text).replacing("-", with: "+").replacing("_", with: "/")
        guard !base64.contains("=") || text.hasSuffix("=") else { return nil }
        base64 = base64.replacing("=", with: "")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }
}

/// Unpadded base64url encoding straight into a string's storage.
enum Base64URL {
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

    /// The bytes as unpadded base64url.
    static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        let length = (bytes.count * 4 + 2) / 3
        return alphabet.withUTF8Buffer { table in
            String(unsafeUninitializedCapacity: length) { output in
                var out = 0
                var index = 0
                while index + 3 <= bytes.count {
                    let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                    output[out] = table[Int(chunk >> 18 & 63)]
                    output[out + 1] = table[Int(chunk >> 12 & 63)]
                    output[out + 2] = table[Int(chunk >> 6 & 63)]
                    output[out + 3] = table[Int(chunk & 63)]
                    out += 4
                    index += 3
                }
                let rest = bytes.count - index
                if rest > 0 {
                    let chunk = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                    output[out] = table[Int(chunk >> 18 & 63)]
                    output[out + 1] = table[Int(chunk >> 12 & 63)]
                    out += 2
                    if rest == 2 {
                        output[out] = table[Int(chunk >> 6 & 63)]
                        out += 1
                    }
                }
                return out
            }
        }
    }
}
