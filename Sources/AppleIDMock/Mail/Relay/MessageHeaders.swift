#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The header section of a message (RFC 5322), unfolded: what the relay's rules read (`From`,
/// `Subject`, `Message-ID`, `DKIM-Signature`) and where the body starts. Bounded: at most
/// `maxFields` fields are read.
struct MessageHeaders: Sendable, Equatable {
    /// The most fields read.
    static let maxFields = 1_000

    /// The fields in order, names as written, values unfolded.
    var fields: [(name: String, value: String)]
    /// Where the body starts in the message (after the empty line), or the message's end.
    var bodyStart: Int

    static func == (lhs: MessageHeaders, rhs: MessageHeaders) -> Bool {
        lhs.bodyStart == rhs.bodyStart && lhs.fields.map(\.name) == rhs.fields.map(\.name)
            && lhs.fields.map(\.value) == rhs.fields.map(\.value)
    }

    /// Reads the header section of `message` (lines ending in CRLF or LF).
    init(parsing message: [UInt8]) {
        var fields: [(name: String, value: String)] = []
        var index = 0
        var lineStart = 0
        var bodyStart = message.count
        while index < message.count {
            guard message[index] == UInt8(ascii: "\n") else {
                index += 1
                continue
            }
            var lineEnd = index
            if lineEnd > lineStart, message[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
            let line = String(decoding: message[lineStart..<lineEnd], as: UTF8.self)
            index += 1
            lineStart = index
            if line.isEmpty {
                bodyStart = index
                break
            }
            if line.first == " " || line.first == "\t" {
                if !fields.isEmpty { fields[fields.count - 1].value += " " + line.trimmingWhitespace() }
            } else if let colon = line.firstIndex(of: ":"), fields.count < Self.maxFields {
                fields.append(
                    (
                        String(line[..<colon]),
                        String(line[line.index(after: colon)...]).trimmingWhitespace()
                    ))
            }
        }
        self.fields = fields
        self.bodyStart = bodyStart
    }

    /// The values of the fields named `name` (without case; the obsolete spelling with spaces
    /// before the colon, `From :`, is the same field).
    func values(_ name: String) -> [String] {
        let lowered = name.lowercased()
        return fields.filter { Self.fieldName($0.name) == lowered }.map(\.value)
    }

    /// A field name as compared: lowercased, without the spaces or tabs of obs-optional.
    static func fieldName(_ written: String) -> String {
        var name = Substring(written)
        while let last = name.last, last == " " || last == "\t" { name = name.dropLast() }
        return name.lowercased()
    }

    /// The first value of the field named `name`.
    func first(_ name: String) -> String? { values(name).first }

    /// The authors of the message, or why they cannot be told.
    var authors: Result<MessageAuthors, AuthorProblem> { MessageAuthors.read(self) }

    /// The address of the first mailbox in `From`, read by RFC 5322's grammar.
    var fromAddress: String? { first("From").flatMap(Self.address(in:)) }

    /// `Subject`, with RFC 2047 encoded words decoded.
    var subject: String? { first("Subject").map(EncodedWords.decode) }

    /// The `d=` tag of every `DKIM-Signature`.
    var dkimDomains: [String] {
        values("DKIM-Signature").compactMap { signature in
            signature.split(separator: ";").lazy.map { $0.trimmingWhitespace() }
                .first { $0.lowercased().hasPrefix("d=") }
                .map { String($0.dropFirst(2)).trimmingWhitespace().lowercased() }
        }
    }

    /// The addr-spec of the first mailbox in an address field's value (RFC 5322's grammar).
    static func address(in value: String) -> String? {
        guard case .success(let mailboxes) = AddressListParser.mailboxes(in: value) else { return nil }
        return mailboxes.first?.address
    }
}

/// RFC 2047 encoded words (`=?UTF-8?B?…?=`, `=?ISO-8859-1?Q?…?=`) as mail libraries write
/// non-ASCII subjects and names.
enum EncodedWords {
    /// `text` with its encoded words decoded (whitespace between two of them dropped).
    static func decode(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        var afterWord = false
        while let start = rest.firstRange(of: "=?") {
            let before = rest[..<start.lowerBound]
            guard let word = word(at: rest[start.lowerBound...]) else {
                result += rest[..<start.upperBound]
                rest = rest[start.upperBound...]
                afterWord = false
                continue
            }
            if !(afterWord && before.allSatisfy(\.isWhitespace)) { result += before }
            result += word.decoded
            rest = rest[word.end...]
            afterWord = true
        }
        return result + rest
    }

    private static func word(at text: Substring) -> (decoded: String, end: Substring.Index)? {
        let parts = text.dropFirst(2).split(separator: "?", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, parts[3].hasPrefix("="), parts[0].count < 40 else { return nil }
        let charset = parts[0].lowercased()
        let payload = parts[2]
        let bytes: [UInt8]?
        switch parts[1].uppercased() {
        case "B": bytes = Data(base64Encoded: String(payload)).map(Array.init)
        case "Q": bytes = quoted(payload)
        default: bytes = nil
        }
        guard let bytes else { return nil }
        let decoded =
            charset == "utf-8" || charset == "us-ascii"
            ? String(decoding: bytes, as: UTF8.self) : String(bytes.map { Character(Unicode.Scalar($0)) })
        return (decoded, parts[3].index(after: parts[3].startIndex))
    }

    private static func quoted(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "_" {
                bytes.append(0x20)
            } else if character == "=" {
                let hexEnd = text.index(index, offsetBy: 3, limitedBy: text.endIndex) ?? text.endIndex
                guard let value = UInt8(text[text.index(after: index)..<hexEnd], radix: 16) else { return nil }
                bytes.append(value)
                index = hexEnd
                continue
            } else {
                bytes.append(contentsOf: Array(String(character).utf8))
            }
            index = text.index(after: index)
        }
        return bytes
    }
}
