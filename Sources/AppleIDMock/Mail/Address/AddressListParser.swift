/// Reads an RFC 5322 address field's value (§3.4, with the obsolete forms of §4.4 and UTF-8 of
/// RFC 6532): mailboxes and groups, display names as phrases (atoms, quoted strings, RFC 2047
/// encoded words), comments (nested, with quoted pairs) and folding whitespace anywhere CFWS may
/// be. Only what the grammar yields as an addr-spec is an address: a comment or a display name
/// that looks like one is not. Linear in the length of the value.
struct AddressListParser {
    /// Why a value is not an address list, with where reading stopped.
    struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        var description: String
    }

    /// The deepest nesting of comments read.
    static let maxCommentDepth = 32

    /// The mailboxes of an address list; those of groups (RFC 6854 allows a group in `From`) are
    /// listed in place.
    static func mailboxes(in value: String) -> Result<[MailAddress], Failure> {
        var parser = AddressListParser(scalars: Array(value.unicodeScalars))
        do {
            return .success(try parser.addressList())
        } catch let failure as Failure {
            return .failure(failure)
        } catch {
            return .failure(Failure(description: "\(error)"))
        }
    }

    private let scalars: [Unicode.Scalar]
    private var position = 0

    private init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    private var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    private func fail(_ expected: String) -> Failure {
        let found =
            current.map {
                (32...126).contains($0.value)
                    ? "'\(Character($0))'" : "U+\(String($0.value, radix: 16, uppercase: true))"
            } ?? "the end"
        return Failure(description: "expected \(expected) at character \(position + 1), found \(found)")
    }

    private mutating func take(_ scalar: Unicode.Scalar) -> Bool {
        guard current == scalar else { return false }
        position += 1
        return true
    }

    // MARK: - Lists

    /// address-list, with obs-addr-list's empty elements.
    private mutating func addressList() throws -> [MailAddress] {
        var result: [MailAddress] = []
        while true {
            try skipCFWS()
            if current == nil { break }
            if take(",") { continue }
            result += try address()
            try skipCFWS()
            if current == nil { break }
            guard take(",") else { throw fail("',' between addresses") }
        }
        return result
    }

    /// mailbox / group.
    private mutating func address() throws -> [MailAddress] {
        let start = position
        if let spec = try? addrSpec(), try endsElement() {
            return [MailAddress(displayName: nil, localPart: spec.local, domain: spec.domain)]
        }
        position = start
        let name = try phrase(optional: true)
        try skipCFWS()
        if take(":") {
            guard name != nil else { throw fail("a group's display name before ':'") }
            var members: [MailAddress] = []
            while true {
                try skipCFWS()
                if take(";") { return members }
                if take(",") { continue }
                guard current != nil else { throw fail("';' at the end of the group") }
                members.append(try mailbox())
                try skipCFWS()
                if take(";") { return members }
                guard take(",") else { throw fail("',' or ';' in the group") }
            }
        }
        position = start
        return [try mailbox()]
    }

    /// name-addr / addr-spec.
    private mutating func mailbox() throws -> MailAddress {
        let start = position
        if let spec = try? addrSpec(), try endsElement() {
            return MailAddress(displayName: nil, localPart: spec.local, domain: spec.domain)
        }
        position = start
        let name = try phrase(optional: true)
        try skipCFWS()
        guard take("<") else { throw fail(name == nil ? "an address" : "'<' after the display name") }
        try skipCFWS()
        if current == "@" {
            // obs-route: `@a,@b:` before the address, read and ignored.
            repeat {
                try skipCFWS()
                guard take("@") else { throw fail("'@' in the route") }
                _ = try domain()
                try skipCFWS()
            } while take(",")
            guard take(":") else { throw fail("':' after the route") }
        }
        let spec = try addrSpec()
        try skipCFWS()
        guard take(">") else { throw fail("'>' after the address") }
        return MailAddress(displayName: name, localPart: spec.local, domain: spec.domain)
    }

    /// Whether what follows (after CFWS) ends a list element: the end, `,` or `;`. Does not move.
    private mutating func endsElement() throws -> Bool {
        let saved = position
        defer { position = saved }
        try skipCFWS()
        return current == nil || current == "," || current == ";"
    }

    // MARK: - Addresses

    /// local-part `@` domain, with CFWS around their parts (obs-local-part, obs-domain).
    private mutating func addrSpec() throws -> (local: String, domain: String) {
        var local = ""
        repeat {
            try skipCFWS()
            if current == "\"" {
                local += Self.requoted(try quotedString())
            } else {
                guard let atom = atom() else { throw fail("a local part") }
                local += atom
            }
            try skipCFWS()
            if current == "." {
                position += 1
                local += "."
                continue
            }
            break
        } while true
        guard take("@") else { throw fail("'@'") }
        return (local, try domain())
    }

    /// dot-atom / domain-literal / obs-domain.
    private mutating func domain() throws -> String {
        try skipCFWS()
        if take("[") {
            var literal = "["
            while let scalar = current, scalar != "]" {
                guard scalar != "[", scalar != "\\", scalar.value > 32, scalar.value != 127 else {
                    throw fail("a domain literal")
                }
                literal.unicodeScalars.append(scalar)
                position += 1
            }
            guard take("]") else { throw fail("']'") }
            try skipCFWS()
            return literal + "]"
        }
        var domain = ""
        repeat {
            try skipCFWS()
            guard let atom = atom() else { throw fail("a domain") }
            domain += atom
            try skipCFWS()
            guard take(".") else { break }
            domain += "."
        } while true
        return domain
    }

    // MARK: - Words

    /// 1*atext (RFC 6532: non-ASCII counts as atext).
    private mutating func atom() -> String? {
        var text = ""
        while let scalar = current, Self.isAtext(scalar) {
            text.unicodeScalars.append(scalar)
            position += 1
        }
        return text.isEmpty ? nil : text
    }

    /// A quoted string's content (quoted pairs undone, folding kept as spaces).
    private mutating func quotedString() throws -> String {
        guard take("\"") else { throw fail("'\"'") }
        var text = ""
        while let scalar = current, scalar != "\"" {
            if scalar == "\\" {
                position += 1
                guard let escaped = current, Self.isVisibleOrSpace(escaped) else { throw fail("a quoted character") }
                text.unicodeScalars.append(escaped)
            } else {
                guard Self.isVisibleOrSpace(scalar) else { throw fail("text in the quoted string") }
                text.unicodeScalars.append(scalar)
            }
            position += 1
        }
        guard take("\"") else { throw fail("'\"' closing the quoted string") }
        return text
    }

    /// phrase (obs-phrase: `.` among the words), decoded to the display name; `nil` when there
    /// is no word and `optional`.
    private mutating func phrase(optional: Bool) throws -> String? {
        var words: [String] = []
        while true {
            try skipCFWS()
            if current == "\"" {
                words.append(try quotedString())
            } else if let atom = atom() {
                words.append(atom)
            } else if !words.isEmpty, take(".") {
                words[words.count - 1] += "."
            } else {
                break
            }
        }
        if words.isEmpty {
            if optional { return nil }
            throw fail("a display name")
        }
        return EncodedWords.decode(words.joined(separator: " "))
    }

    /// Skips folding whitespace and comments, nested up to `maxCommentDepth`.
    private mutating func skipCFWS() throws {
        while let scalar = current {
            if scalar == " " || scalar == "\t" {
                position += 1
            } else if scalar == "(" {
                var depth = 0
                while let inner = current {
                    position += 1
                    switch inner {
                    case "(":
                        depth += 1
                        if depth > Self.maxCommentDepth {
                            throw fail("comments nested at most \(Self.maxCommentDepth) deep")
                        }
                    case ")":
                        depth -= 1
                    case "\\":
                        guard let escaped = current, Self.isVisibleOrSpace(escaped) else {
                            throw fail("a quoted character in the comment")
                        }
                        position += 1
                    default:
                        guard Self.isVisibleOrSpace(inner) else { throw fail("text in the comment") }
                    }
                    if depth == 0 { break }
                }
                if depth != 0 { throw fail("')' closing the comment") }
            } else {
                return
            }
        }
    }

    // MARK: - Characters

    static func isAtext(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value >= 0x80 { return !isControl(scalar) }
        return SMTPPath.isAtext(UInt8(scalar.value))
    }

    /// Visible ASCII, space, tab, or non-ASCII that is not a control (RFC 6532).
    static func isVisibleOrSpace(_ scalar: Unicode.Scalar) -> Bool {
        (32...126).contains(scalar.value) || scalar == "\t" || (scalar.value >= 0x80 && !isControl(scalar))
    }

    /// C0, DEL, C1 and the Unicode line and paragraph separators.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 32 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    /// A quoted local part as RFC 5321 writes it: quotes, with `"` and `\` escaped.
    static func requoted(_ content: String) -> String {
        var text = "\""
        for scalar in content.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { text += "\\" }
            text.unicodeScalars.append(scalar)
        }
        return text + "\""
    }
}
