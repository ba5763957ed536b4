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

    /// The reply as sent on the wire, CRLF after each line.
    var wire: String {
        lines.enumerated().map { index, line in
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
