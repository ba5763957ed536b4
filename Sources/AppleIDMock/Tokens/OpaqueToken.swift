/// Random opaque values in the shapes Apple's server uses (reference §0), e.g. a code
/// `c<32 hex>.0.<4 lowercase>.<22 base64url>`.
public enum OpaqueToken {
    /// What the value is; its first character.
    public enum Kind: Character, Sendable {
        case code = "c"
        case accessToken = "a"
        case refreshToken = "r"
    }

    private static let hex = Array("0123456789abcdef".utf8)
    private static let lower = Array("abcdefghijklmnopqrstuvwxyz".utf8)
    private static let url = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// A new random value of `kind`.
    public static func make(_ kind: Kind) -> String {
        var generator = SystemRandomNumberGenerator()
        var text: [UInt8] = []
        text.reserveCapacity(62)
        text.append(kind.rawValue.asciiValue ?? UInt8(ascii: "x"))
        func pick(_ alphabet: [UInt8], _ count: Int) {
            for _ in 0..<count { text.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]) }
        }
        pick(hex, 32)
        text.append(contentsOf: ".0.".utf8)
        pick(lower, 4)
        text.append(UInt8(ascii: "."))
        pick(url, 22)
        return String(decoding: text, as: UTF8.self)
    }
}
