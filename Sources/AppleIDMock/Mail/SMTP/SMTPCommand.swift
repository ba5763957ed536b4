#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One SMTP command line, parsed: the verb and what follows it (RFC 5321 §4.1).
enum SMTPCommand: Equatable, Sendable {
    case ehlo(String)
    case helo(String)
    /// `MAIL FROM:<path> [params]`: the reverse path (empty for the null sender) and the parameters.
    case mail(from: String, parameters: [String: String])
    /// `RCPT TO:<path> [params]`.
    case rcpt(to: String, parameters: [String: String])
    case data
    case rset
    case noop
    case quit
    case vrfy
    case expn
    case help
    case startTLS
    case auth
    /// A known verb with arguments it does not take, or a path that cannot be read.
    case syntaxError(verb: String)
    /// A verb the mock does not know.
    case unknown(String)

    /// Parses a command line (without its line ending).
    static func parse(_ line: String) -> SMTPCommand {
        let trimmed = line.trimming { $0 == " " || $0 == "\t" }
        let verbEnd = trimmed.firstIndex(where: { $0 == " " || $0 == "\t" || $0 == ":" }) ?? trimmed.endIndex
        let verb = trimmed[..<verbEnd].uppercased()
        let rest = trimmed[verbEnd...].trimming { $0 == " " || $0 == "\t" }
        switch verb {
        case "EHLO": return rest.isEmpty ? .syntaxError(verb: verb) : .ehlo(rest)
        case "HELO": return rest.isEmpty ? .syntaxError(verb: verb) : .helo(rest)
        case "MAIL":
            guard let (path, parameters) = pathAndParameters(rest, keyword: "FROM") else {
                return .syntaxError(verb: verb)
            }
            return .mail(from: path, parameters: parameters)
        case "RCPT":
            guard let (path, parameters) = pathAndParameters(rest, keyword: "TO"), !path.isEmpty else {
                return .syntaxError(verb: verb)
            }
            return .rcpt(to: path, parameters: parameters)
        case "DATA": return rest.isEmpty ? .data : .syntaxError(verb: verb)
        case "RSET": return rest.isEmpty ? .rset : .syntaxError(verb: verb)
        case "NOOP": return .noop
        case "QUIT": return rest.isEmpty ? .quit : .syntaxError(verb: verb)
        case "VRFY": return .vrfy
        case "EXPN": return .expn
        case "HELP": return .help
        case "STARTTLS": return rest.isEmpty ? .startTLS : .syntaxError(verb: verb)
        case "AUTH": return .auth
        default: return .unknown(verb)
        }
    }

    /// Reads `FROM:<path> KEY=VALUE …` (spaces allowed around the colon, as many clients send them);
    /// the path by RFC 5321's grammar (`SMTPPath`).
    private static func pathAndParameters(_ text: String, keyword: String) -> (String, [String: String])? {
        guard text.uppercased().hasPrefix(keyword) else { return nil }
        var rest = text.dropFirst(keyword.count).drop { $0 == " " }
        guard rest.first == ":" else { return nil }
        rest = rest.dropFirst().drop { $0 == " " }
        guard let path = SMTPPath.parse(rest) else { return nil }
        let after = rest[path.end...]
        guard after.isEmpty || after.first == " " else { return nil }
        var parameters: [String: String] = [:]
        for word in after.split(separator: " ") {
            let parts = word.split(separator: "=", maxSplits: 1)
            parameters[parts[0].uppercased()] = parts.count > 1 ? String(parts[1]) : ""
        }
        return (path.mailbox, parameters)
    }

    /// Whether `line` holds only printable ASCII, spaces and tabs: anything else (CR, NUL, DEL,
    /// 8-bit, invalid UTF-8) makes the command refused with a fixed text, never quoted back.
    static func isPrintable(_ line: [UInt8]) -> Bool {
        line.allSatisfy { (32...126).contains($0) || $0 == 9 }
    }
}
