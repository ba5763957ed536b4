/// One SMTP reply: a three-digit code, an enhanced status code (RFC 3463) and one or more lines of
/// text, written as `250-…` continuation lines and a last `250 …` line.
struct SMTPReply: Sendable, Equatable, CustomStringConvertible {
    /// The reply code, e.g. 250 or 550.
    var code: Int
    /// The enhanced status code, e.g. `5.1.1` (`nil` on the greeting and on EHLO's lines).
    var enhanced: String?
    /// The text lines (at least one).
    var lines: [String]

    init(_ code: Int, _ enhanced: String?, _ lines: String...) {
        self.code = code
        self.enhanced = enhanced
        self.lines = lines.isEmpty ? [""] : lines
    }

    init(code: Int, enhanced: String?, lines: [String]) {
        self.code = code
        self.enhanced = enhanced
        self.lines = lines.isEmpty ? [""] : lines
    }

    /// Whether the reply accepts (2xx or 3xx).
    var isPositive: Bool { code < 400 }

    /// Client text as a reply may quote it: printable ASCII only (anything else becomes `?`), at
    /// most `limit` characters, so that no client can make the server say a forged line.
    static func quoted(_ text: String, limit: Int = 100) -> String {
        let printable = text.unicodeScalars.prefix(limit + 1).map {
            (32...126).contains($0.value) ? Character($0) : "?"
        }
        return printable.count > limit ? String(printable.prefix(limit)) + "..." : String(printable)
    }

    /// The reply as sent on the wire, CRLF after each line (a CR or LF inside a line's text, which
    /// the server never writes, would be sent as a space).
    var wire: String {
        lines.map { String($0.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 }) }.enumerated().map {
            index, line in
            let separator = index == lines.count - 1 ? " " : "-"
            let prefix = enhanced.map { "\($0) " } ?? ""
            return "\(code)\(separator)\(prefix)\(line)\r\n"
        }.joined()
    }

    /// The reply on one line, as the mailbox and the journal show it.
    var description: String {
        "\(code) " + (enhanced.map { "\($0) " } ?? "") + lines.joined(separator: " / ")
    }
}
