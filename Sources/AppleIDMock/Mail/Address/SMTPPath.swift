/// An envelope address read by RFC 5321's grammar (§4.1.2): `<` [source route `:`] mailbox `>`,
/// the mailbox a dot-string or quoted-string local part, `@`, and a domain or address literal.
/// What the grammar refuses (`evil@evil.test@example.com`, a bare `<a b@x>`) is refused.
struct SMTPPath: Sendable, Equatable {
    /// The mailbox as written between the brackets (source route dropped), `""` for `<>`.
    var mailbox: String
    /// Where the path ends in the text it was read from (after `>`).
    var end: String.Index

    /// The longest local part (RFC 5321 §4.5.3.1.1) and the longest path (§4.5.3.1.3).
    static let maxLocalPart = 64
    static let maxPath = 256

    /// Reads a path at the start of `text`; `nil` when it is not one.
    static func parse(_ text: Substring) -> SMTPPath? {
        let bytes = Array(text.utf8)
        var scanner = Scanner(bytes: bytes)
        guard let mailbox = scanner.path(), scanner.position <= maxPath + 2 else { return nil }
        let end = text.utf8.index(text.utf8.startIndex, offsetBy: scanner.position)
        return SMTPPath(mailbox: mailbox, end: end)
    }

    /// Whether `text` is a whole mailbox (`local@domain`) by RFC 5321's grammar.
    static func isMailbox(_ text: String) -> Bool {
        var scanner = Scanner(bytes: Array(text.utf8))
        return scanner.mailbox() != nil && scanner.atEnd
    }

    /// A cursor over the bytes of a path.
    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        var atEnd: Bool { position == bytes.count }
        var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func take(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            position += 1
            return true
        }

        /// `<` [A-d-l `:`] Mailbox `>`, or `<>`.
        mutating func path() -> String? {
            guard take(UInt8(ascii: "<")) else { return nil }
            if take(UInt8(ascii: ">")) { return "" }
            if current == UInt8(ascii: "@") {
                // A source route: `@a,@b:`; allowed and ignored (§4.1.2, appendix C).
                repeat {
                    guard take(UInt8(ascii: "@")), domain() != nil else { return nil }
                } while take(UInt8(ascii: ","))
                guard take(UInt8(ascii: ":")) else { return nil }
            }
            guard let mailbox = mailbox(), take(UInt8(ascii: ">")) else { return nil }
            return mailbox
        }

        /// Local-part `@` (Domain / address-literal).
        mutating func mailbox() -> String? {
            let start = position
            guard let local = localPart(), local <= SMTPPath.maxLocalPart, take(UInt8(ascii: "@")) else { return nil }
            if current == UInt8(ascii: "[") {
                guard addressLiteral() else { return nil }
            } else {
                guard domain() != nil else { return nil }
            }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }

        /// A dot-string or a quoted string; returns its length.
        mutating func localPart() -> Int? {
            let start = position
            if take(UInt8(ascii: "\"")) {
                while let byte = current, byte != UInt8(ascii: "\"") {
                    if byte == UInt8(ascii: "\\") {
                        position += 1
                        guard let escaped = current, (32...126).contains(escaped) else { return nil }
                    } else {
                        guard (32...126).contains(byte) else { return nil }
                    }
                    position += 1
                }
                guard take(UInt8(ascii: "\"")) else { return nil }
                return position - start
            }
            repeat {
                guard atom() else { return nil }
            } while take(UInt8(ascii: "."))
            return position - start
        }

        /// 1*atext.
        mutating func atom() -> Bool {
            let start = position
            while let byte = current, SMTPPath.isAtext(byte) { position += 1 }
            return position > start
        }

        /// sub-domain *("." sub-domain), each letters, digits and inner hyphens.
        mutating func domain() -> String? {
            let start = position
            repeat {
                let label = position
                while let byte = current, byte < 128, SMTPPath.isLetDig(byte) || byte == UInt8(ascii: "-") {
                    position += 1
                }
                guard position > label, position - label <= 63, SMTPPath.isLetDig(bytes[label]),
                    SMTPPath.isLetDig(bytes[position - 1])
                else { return nil }
            } while take(UInt8(ascii: "."))
            guard position - start <= 255 else { return nil }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }

        /// `[` 1*dcontent `]` (an IPv4 or tagged literal, read loosely).
        mutating func addressLiteral() -> Bool {
            guard take(UInt8(ascii: "[")) else { return false }
            let start = position
            while let byte = current, (33...90).contains(byte) || (94...126).contains(byte) { position += 1 }
            return position > start && take(UInt8(ascii: "]"))
        }
    }

    /// RFC 5322's atext: letters, digits and ``!#$%&'*+-/=?^_`{|}~``.
    static func isAtext(_ byte: UInt8) -> Bool {
        guard byte < 128 else { return false }
        return isLetDig(byte) || Array("!#$%&'*+-/=?^_`{|}~".utf8).contains(byte)
    }

    /// A letter or digit (ASCII).
    static func isLetDig(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
    }
}
