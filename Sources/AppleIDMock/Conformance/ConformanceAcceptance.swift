#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads a backend's answer as the config says acceptance looks (status class, body text, cookie,
/// the signed-in user by JSON pointer); with nothing said, a 2xx is acceptance.
enum ConformanceAcceptance {
    /// What the backend answered.
    struct Answer: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: String
        /// The URL of the final answer (the web path, after redirects).
        var finalURL: String?
        /// The cookies every answer of the sign-in set (the web path).
        var cookiesSet: [String] = []
    }

    /// What the answer shows: whether the backend signed a user in, and whom, if the config names
    /// a pointer to it.
    struct Reading: Sendable, Equatable {
        var accepted: Bool
        var user: String?
        /// Whether the backend counts the email as verified, where `emailVerifiedPointer` reads it.
        var emailVerified: Bool? = nil
    }

    /// A test for a status: `2xx`-style classes or one status; `nil` for anything else.
    static func statusMatcher(_ text: String) -> (@Sendable (Int) -> Bool)? {
        let lower = text.lowercased()
        if lower.count == 3, lower.hasSuffix("xx"), let digit = lower.first?.wholeNumberValue, (1...5).contains(digit) {
            return { $0 / 100 == digit }
        }
        if let status = Int(text), (100...599).contains(status), text.allSatisfy(\.isASCII) {
            return { $0 == status }
        }
        return nil
    }

    /// How `answer` reads under `acceptance`.
    static func read(_ answer: Answer, by acceptance: ConformanceConfig.Acceptance) -> Reading {
        var accepted = (statusMatcher(acceptance.status ?? "2xx") ?? { $0 / 100 == 2 })(answer.status)
        if let needle = acceptance.bodyContains { accepted = accepted && answer.body.contains(needle) }
        if let cookie = acceptance.cookie {
            let set = answer.cookiesSet + answer.headers.filter { $0.name.lowercased() == "set-cookie" }.map(\.value)
            accepted = accepted && set.contains { $0.trimmingWhitespace().hasPrefix(cookie + "=") }
        }
        // Only the web path follows redirects to a final page; elsewhere there is no final URL to
        // read, and the condition is ignored (a config-wide `accepted` may serve several paths).
        if let needle = acceptance.finalUrlContains, let url = answer.finalURL {
            accepted = accepted && url.contains(needle)
        }
        var user: String?
        if let pointer = acceptance.userPointer {
            user = value(at: pointer, in: answer.body)
            accepted = accepted && user != nil
        }
        let emailVerified = acceptance.emailVerifiedPointer.flatMap { flag(at: $0, in: answer.body) }
        return Reading(accepted: accepted, user: user, emailVerified: emailVerified)
    }

    /// The string (or number) at `pointer` (RFC 6901) in the JSON `body`, if there is one.
    static func value(at pointer: String, in body: String) -> String? {
        switch element(at: pointer, in: body) {
        case .string(let text): text.isEmpty ? nil : text
        case .number(let number): String(number)
        default: nil
        }
    }

    /// The boolean at `pointer` in the JSON `body`: `true`/`false`, or the strings `"true"`/`"false"`.
    static func flag(at pointer: String, in body: String) -> Bool? {
        switch element(at: pointer, in: body) {
        case .bool(let flag): flag
        case .string("true"): true
        case .string("false"): false
        default: nil
        }
    }

    /// The JSON value at `pointer` (RFC 6901) in the JSON `body`, if there is one.
    private static func element(at pointer: String, in body: String) -> JSONValue? {
        guard var value = try? JSONValue.parse(Data(body.utf8)) else { return nil }
        for token in pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let name = String(token.replacing("~1", with: "/").replacing("~0", with: "~"))
            switch value {
            case .object(let members):
                guard let next = members[name] else { return nil }
                value = next
            case .array(let items):
                guard let index = Int(name), items.indices.contains(index) else { return nil }
                value = items[index]
            default: return nil
            }
        }
        return value
    }
}
