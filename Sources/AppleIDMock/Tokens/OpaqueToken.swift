/// Random opaque values in the shapes Apple's server uses (reference §0), e.g. a code
/// `c<32 hex>.0.<4 lowercase>.<22 base64url>`.
enum OpaqueToken {
    /// What the value is; its first character.
    enum Kind: Character, Sendable {
        case code = "c"
        case accessToken = "a"
        case refreshToken = "r"
    }

    private static let hex = Array("0123456789abcdef".utf8)
    private static let lower = Array("abcdefghijklmnopqrstuvwxyz".utf8)
    private static let url = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// A new random value of `kind`: 58 random characters from 7 draws of the system's generator
    /// (a draw is a system call), 4, 5 or 6 bits of each byte.
    static func make(_ kind: Kind) -> String {
        var generator = SystemRandomNumberGenerator()
        let random = (0..<7).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } }
        var text: [UInt8] = []
        text.reserveCapacity(62)
        text.append(kind.rawValue.asciiValue ?? UInt8(ascii: "x"))
        for index in 0..<16 {  // 32 hex digits from 16 bytes
            text.append(hex[Int(random[index] >> 4)])
            text.append(hex[Int(random[index] & 0x0F)])
        }
        text.append(contentsOf: ".0.".utf8)
        for index in 16..<20 { text.append(lower[Int(random[index]) % lower.count]) }
        text.append(UInt8(ascii: "."))
        for index in 20..<42 { text.append(url[Int(random[index] & 0x3F)]) }
        return String(decoding: text, as: UTF8.self)
    }
}
