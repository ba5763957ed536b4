/// Trimming as Foundation's `trimmingCharacters(in:)` does it (scalar by scalar, from both ends),
/// without Foundation's `CharacterSet`.
extension StringProtocol {
    /// The text without the leading and trailing Unicode scalars that `isTrimmed` accepts.
    func trimming(where isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = String(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
            let last = scalars.lastIndex(where: { !isTrimmed($0) })
        else { return "" }
        return String(scalars[first...last])
    }

    /// `trimmingCharacters(in: .whitespaces)`: CoreFoundation's whitespace, that is the tab, Unicode's
    /// space separators (category Zs) and the zero width space (U+200B).
    func trimmingWhitespace() -> String {
        trimming { scalar in
            switch scalar.value {
            case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
            default: false
            }
        }
    }
}
