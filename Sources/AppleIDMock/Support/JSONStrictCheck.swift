#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Checks JSON text more strictly than `JSONDecoder` and says where it fails: invalid UTF-8 and
/// syntax errors by line and column, and a member name that appears twice in one object (which
/// `JSONDecoder` accepts, keeping one value silently) by its JSON path.
struct JSONStrictCheck {
    /// Why the text was refused: where (the JSON path of the value being read, and the line and
    /// column, both from 1) and what is wrong.
    struct Problem: Error, Equatable, CustomStringConvertible {
        var path: JSONPath
        var line: Int
        var column: Int
        var reason: String
        /// Whether the text is not JSON at all (not only a name given twice).
        var isSyntax = true

        var description: String { "line \(line), column \(column): \(reason)" }
    }

    private let bytes: [UInt8]
    private var offset = 0
    private var line = 1
    /// Where the current line starts, to count columns in characters.
    private var lineStart = 0

    /// Checks `data`; throws the first problem.
    static func check(_ data: Data) throws(Problem) {
        var checker = JSONStrictCheck(bytes: Array(data))
        try checker.checkEncoding()
        try checker.document()
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: - Encoding

    /// Refuses invalid UTF-8, naming the line and column of the first bad byte.
    private mutating func checkEncoding() throws(Problem) {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count {
            let byte = bytes[index]
            let length: Int
            switch byte {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: length = 0
            }
            var valid = length > 0 && index + length <= bytes.count
            if valid && length > 1 {
                let continuation = bytes[(index + 1)..<(index + length)]
                valid = continuation.allSatisfy { $0 & 0xC0 == 0x80 }
                // Overlong forms, surrogates and code points past U+10FFFF.
                let second = bytes[index + 1]
                if byte == 0xE0 && second < 0xA0 { valid = false }
                if byte == 0xED && second > 0x9F { valid = false }
                if byte == 0xF0 && second < 0x90 { valid = false }
                if byte == 0xF4 && second > 0x8F { valid = false }
            }
            guard valid else {
                let (line, column) = position(of: index)
                throw Problem(
                    path: .root, line: line, column: column,
                    reason: "invalid UTF-8 (byte 0x\(String(byte, radix: 16, uppercase: true)))")
            }
            index += length
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3 }
    }

    /// The line and column (in characters) of a byte offset.
    private func position(of target: Int) -> (Int, Int) {
        var line = 1
        var column = 1
        var index = 0
        while index < target && index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if bytes[index] & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return (line, column)
    }

    // MARK: - Grammar

    private mutating func document() throws(Problem) {
        skipWhitespace()
        try value(at: .root, depth: 0)
        skipWhitespace()
        if offset < bytes.count { throw problem(at: .root, "unexpected \(found) after the document") }
    }

    private mutating func value(at path: JSONPath, depth: Int) throws(Problem) {
        guard depth <= JSONValue.maximumDepth else {
            throw problem(at: path, "nested deeper than \(JSONValue.maximumDepth) levels")
        }
        guard offset < bytes.count else { throw problem(at: path, "the document ends where a value should be") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): try object(at: path, depth: depth)
        case UInt8(ascii: "["): try array(at: path, depth: depth)
        case UInt8(ascii: "\""): _ = try string(at: path)
        case UInt8(ascii: "t"): try literal("true", at: path)
        case UInt8(ascii: "f"): try literal("false", at: path)
        case UInt8(ascii: "n"): try literal("null", at: path)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number(at: path)
        default: throw problem(at: path, "expected a value, found \(found)")
        }
    }

    private mutating func object(at path: JSONPath, depth: Int) throws(Problem) {
        advance()  // {
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            advance()
            return
        }
        // Where each name was first seen (columns are counted only for a message).
        var seen: [String: (line: Int, lineStart: Int, offset: Int)] = [:]
        while true {
            guard peek(UInt8(ascii: "\"")) else {
                throw problem(at: path, "expected a member name in double quotes, found \(found)")
            }
            let start = (line: line, lineStart: lineStart, offset: offset)
            let name = try string(at: path)
            if let first = seen[name] {
                throw Problem(
                    path: path.member(name), line: start.line, column: column(start.lineStart, start.offset),
                    reason:
                        "member \"\(name)\" appears twice in one object (line \(start.line), column \(column(start.lineStart, start.offset)); first at line \(first.line), column \(column(first.lineStart, first.offset))); remove one",
                    isSyntax: false)
            }
            seen[name] = start
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else {
                throw problem(at: path.member(name), "expected ':' after member name \"\(name)\", found \(found)")
            }
            advance()
            skipWhitespace()
            try value(at: path.member(name), depth: depth + 1)
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                advance()
                skipWhitespace()
                continue
            }
            if peek(UInt8(ascii: "}")) {
                advance()
                return
            }
            throw problem(at: path, "expected ',' or '}' after member \"\(name)\", found \(found)")
        }
    }

    private mutating func array(at path: JSONPath, depth: Int) throws(Problem) {
        advance()  // [
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            advance()
            return
        }
        var index = 0
        while true {
            try value(at: path.index(index), depth: depth + 1)
            skipWhitespace()
            if peek(UInt8(ascii: ",")) {
                advance()
                skipWhitespace()
                index += 1
                continue
            }
            if peek(UInt8(ascii: "]")) {
                advance()
                return
            }
            throw problem(at: path, "expected ',' or ']' after element \(index), found \(found)")
        }
    }

    /// A string's value (escapes decoded), the cursor after its closing quote.
    private mutating func string(at path: JSONPath) throws(Problem) -> String {
        advance()  // "
        var scalars: [UInt8] = []
        while offset < bytes.count {
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                advance()
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                advance()
                guard offset < bytes.count else { break }
                let escape = bytes[offset]
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    let digits = bytes[(offset + 1)..<min(offset + 5, bytes.count)]
                    guard digits.count == 4, let code = UInt32(String(decoding: digits, as: UTF8.self), radix: 16)
                    else { throw problem(at: path, "\\u needs four hex digits") }
                    // Names are compared as written; a lone surrogate is kept as its escape text.
                    if let scalar = Unicode.Scalar(code) {
                        scalars += Array(String(Character(scalar)).utf8)
                    } else {
                        scalars += Array("\\u".utf8) + Array(digits)
                    }
                    offset += 4
                default:
                    throw problem(at: path, "unknown escape \\\(Character(Unicode.Scalar(escape)))")
                }
                advance()
            case 0x00..<0x20:
                throw problem(at: path, "a control character (0x\(String(byte, radix: 16))) inside a string; escape it")
            default:
                scalars.append(byte)
                advance()
            }
        }
        throw problem(at: path, "the document ends inside a string")
    }

    private mutating func literal(_ word: String, at path: JSONPath) throws(Problem) {
        let expected = Array(word.utf8)
        guard bytes[offset...].starts(with: expected) else {
            throw problem(at: path, "expected a value, found \(found)")
        }
        offset += expected.count
    }

    private mutating func number(at path: JSONPath) throws(Problem) {
        let start = offset
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        if peek(UInt8(ascii: "-")) { advance() }
        guard offset < bytes.count, isDigit(bytes[offset]) else { throw problem(at: path, "a malformed number") }
        if peek(UInt8(ascii: "0")) {
            advance()
        } else {
            while offset < bytes.count && isDigit(bytes[offset]) { advance() }
        }
        if peek(UInt8(ascii: ".")) {
            advance()
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw problem(at: path, "a malformed number") }
            while offset < bytes.count && isDigit(bytes[offset]) { advance() }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            advance()
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { advance() }
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw problem(at: path, "a malformed number") }
            while offset < bytes.count && isDigit(bytes[offset]) { advance() }
        }
        if offset < bytes.count, isDigit(bytes[offset]) || bytes[offset] == UInt8(ascii: ".") {
            offset = start
            throw problem(at: path, "a malformed number")
        }
    }

    // MARK: - Cursor

    private func peek(_ byte: UInt8) -> Bool {
        offset < bytes.count && bytes[offset] == byte
    }

    private mutating func advance() {
        offset += 1
    }

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): offset += 1
            case UInt8(ascii: "\n"):
                offset += 1
                line += 1
                lineStart = offset
            default: return
            }
        }
    }

    /// The column, in characters, of `offset` on the line starting at `lineStart`.
    private func column(_ lineStart: Int, _ offset: Int) -> Int {
        bytes[lineStart..<min(offset, bytes.count)].reduce(1) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
    }

    /// What is at the cursor, for messages.
    private var found: String {
        guard offset < bytes.count else { return "the end of the document" }
        let byte = bytes[offset]
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private func problem(at path: JSONPath, _ reason: String) -> Problem {
        Problem(path: path, line: line, column: column(lineStart, offset), reason: reason)
    }
}
