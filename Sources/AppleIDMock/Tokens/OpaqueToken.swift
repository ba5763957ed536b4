/// Random opaque values in the shapes Apple's server uses (reference §0), e.g. a code
/// `c<32 hex>.0.<4 lowercase>.<22 base64url>`.
public enum OpaqueToken {
    /// What the value is; its first character.
    public enum Kind: Character, Sendable {
        case code = "c"
        case accessToken = "a"
        case refreshToken = "r"
    }

    /// A new random value of `kind`.
    public static func make(_ kind: Kind) -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef")
        let lower = Array("abcdefghijklmnopqrstuvwxyz")
        let url = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        func pick(_ alphabet: [Character], _ count: Int) -> String {
            String((0..<count).map { _ in alphabet.randomElement(using: &generator)! })
        }
        return "\(kind.rawValue)\(pick(hex, 32)).0.\(pick(lower, 4)).\(pick(url, 22))"
    }
}
