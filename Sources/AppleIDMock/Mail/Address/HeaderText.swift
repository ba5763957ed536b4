#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Text as the relay writes it into a header, always RFC 5322 clean: display names as a quoted
/// string or RFC 2047 encoded words (never raw CR, LF, NUL or 8-bit), and tokens such as the
/// client's EHLO name reduced to visible ASCII.
enum HeaderText {
    /// `name` as a phrase: controls (CR, LF, NUL, …) become spaces; printable ASCII is written as a
    /// quoted string (`"` and `\` escaped), anything else as UTF-8 encoded words of at most 75
    /// characters each; `nil` when nothing is left.
    static func phrase(_ name: String) -> String? {
        let cleaned = String(
            String.UnicodeScalarView(
                name.unicodeScalars.map { AddressListParser.isControl($0) ? " " : $0 })
        )
        .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        guard !cleaned.isEmpty else { return nil }
        if cleaned.unicodeScalars.allSatisfy({ (32...126).contains($0.value) }) {
            return AddressListParser.requoted(cleaned)
        }
        return encodedWords(cleaned)
    }

    /// `text` as UTF-8 `B` encoded words, split between characters so that each word has at
    /// most 75 characters (RFC 2047 §2), separated by folding spaces.
    static func encodedWords(_ text: String) -> String {
        // 45 bytes of UTF-8 make 60 base64 characters; with `=?UTF-8?B?` and `?=` that is 72.
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45, !chunk.isEmpty {
                words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=")
                chunk = []
            }
            chunk += bytes.prefix(45)
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=") }
        return words.joined(separator: "\r\n ")
    }

    /// A token (a host name the client gave, say) as visible ASCII: anything else becomes `_`; at
    /// most `limit` characters.
    static func token(_ text: String, limit: Int = 200) -> String {
        let mapped = text.unicodeScalars.prefix(limit).map { (33...126).contains($0.value) ? Character($0) : "_" }
        return mapped.isEmpty ? "unknown" : String(mapped)
    }

    /// Unstructured text (a subject, say) on one line: controls become spaces; non-ASCII as
    /// encoded words.
    static func unstructured(_ text: String) -> String {
        let cleaned = String(
            String.UnicodeScalarView(text.unicodeScalars.map { AddressListParser.isControl($0) ? " " : $0 }))
        guard !cleaned.unicodeScalars.allSatisfy({ (32...126).contains($0.value) }) else { return cleaned }
        return encodedWords(cleaned)
    }
}
