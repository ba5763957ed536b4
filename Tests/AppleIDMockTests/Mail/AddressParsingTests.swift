import Foundation
import Testing

@testable import AppleIDMock

/// The RFC 5322 address parser and the reading of a message's authors: comments, quoted strings,
/// groups, folding, encoded words and the obsolete forms, and everything the relay refuses.
@Suite("RFC 5322 addresses")
struct AddressParsingTests {
    static func addresses(_ value: String) -> [String]? {
        guard case .success(let found) = AddressListParser.mailboxes(in: value) else { return nil }
        return found.map(\.address)
    }

    static func authors(_ header: String) -> Result<MessageAuthors, AuthorProblem> {
        MessageHeaders(parsing: Array((header + "\r\n\r\nbody\r\n").utf8)).authors
    }

    @Test("only the addr-spec is an address: comments and display names that look like one are not")
    func comments() {
        #expect(Self.addresses("evil@evil.test (<receipts@payments.example.net>)") == ["evil@evil.test"])
        #expect(Self.addresses("<evil@evil.test> (via <receipts@payments.example.net>)") == ["evil@evil.test"])
        #expect(Self.addresses("(a (nested) comment) evil@evil.test (and \\) another)") == ["evil@evil.test"])
        #expect(Self.addresses("\"receipts@payments.example.net\" <evil@evil.test>") == ["evil@evil.test"])
        #expect(
            Self.addresses("\"<receipts@payments.example.net>\"@evil.test")
                == ["\"<receipts@payments.example.net>\"@evil.test"])
        #expect(Self.addresses("receipts@payments.example.net <evil@evil.test>") == nil)
    }

    @Test("display names: quoted strings with pairs, encoded words, obsolete dots; routes ignored")
    func names() throws {
        let found = try AddressListParser.mailboxes(
            in:
                "\"Shop, \\\"Inc\\\"\" <shop@example.com>, =?UTF-8?B?w4lsw6lnYW50?= <a@example.com>, John Q. Public <jq@example.com>, <@relay.example:route@example.com>"
        ).get()
        #expect(found.map(\.displayName) == ["Shop, \"Inc\"", "Élégant", "John Q. Public", nil])
        #expect(found.map(\.address) == ["shop@example.com", "a@example.com", "jq@example.com", "route@example.com"])
    }

    @Test("groups list their members in place; an empty group names none")
    func groups() {
        #expect(
            Self.addresses("Team: a@example.com, B <b@example.com>;, c@example.com") == [
                "a@example.com", "b@example.com", "c@example.com",
            ])
        #expect(Self.addresses("undisclosed-recipients:;") == [])
    }

    @Test("what the grammar refuses is refused, with where")
    func refusals() {
        for bad in [
            "evil@evil.test@example.com", "<a@example.com", "a@example.com>", "\"open@example.com",
            "(unclosed a@example.com", "a@", "@example.com", "a b@example.com", "<a@example.com> junk",
            "a@example.com\r\nX-Injected: yes", "a\u{0}@example.com", String(repeating: "(", count: 40) + "x",
        ] {
            #expect(Self.addresses(bad) == nil, "\(bad)")
        }
        guard case .failure(let failure) = AddressListParser.mailboxes(in: "<a@example.com") else { return }
        #expect(failure.description.contains("'>'"))
    }

    @Test("authors: one From, the obsolete 'From :' counts, several mailboxes need Sender")
    func authors() throws {
        #expect(try Self.authors("From: A <a@example.com>").get().addresses == ["a@example.com"])
        for (header, reason) in [
            ("From: <receipts@example.com>\r\nFrom: evil@evil.test", "2 From headers"),
            ("From: <receipts@example.com>\r\nFrom : evil@evil.test", "2 From headers"),
            ("From: receipts@example.com, evil@evil.test", "no Sender header"),
            ("Subject: none", "no From header"),
            ("From: a@example.com\r\nSender: a@example.com, b@example.com", "names 2 mailboxes"),
            ("From: undisclosed:;", "names no mailbox"),
            ("From: evil@evil.test@example.com", "not an RFC 5322 address list"),
        ] {
            guard case .failure(let problem) = Self.authors(header) else {
                Issue.record("accepted: \(header)")
                continue
            }
            #expect(problem.reason.contains(reason), "\(header): \(problem.reason)")
        }
        let folded = try Self.authors("From: A <a@example.com>,\r\n\tB <b@example.com>\r\nSender: a@example.com").get()
        #expect(folded.addresses == ["a@example.com", "b@example.com", "a@example.com"])
    }

    @Test("the relay checks every author and the Sender against the registered senders")
    func rules() {
        let teams = RelayRulesTests.teams
        let target = RelayRulesTests.target
        for header in [
            "From: evil@evil.test (<news@example.com>)", "From: <evil@evil.test> (via <news@example.com>)",
            "From: \"<news@example.com>\"@evil.test",
            "From: news@example.com, evil@evil.test\r\nSender: news@example.com",
            "From: news@example.com\r\nSender: evil@evil.test", "From: news@example.com\r\nFrom: evil@evil.test",
        ] {
            let headers = MessageHeaders(parsing: Array((header + "\r\n\r\n").utf8))
            #expect(
                RelayRules.message(headers, targets: [target], teams: teams, requireDKIM: false)?.outcome
                    == .unauthorizedSender, "\(header)")
        }
        let good = MessageHeaders(parsing: Array("From: News (the team) <news@example.com>\r\n\r\n".utf8))
        #expect(RelayRules.message(good, targets: [target], teams: teams, requireDKIM: false) == nil)
    }

    @Test("header text: decoded names written back quoted or as encoded words; no CR, LF or NUL")
    func headerText() {
        #expect(HeaderText.phrase("Shop \"Inc\"") == "\"Shop \\\"Inc\\\"\"")
        let injected = HeaderText.phrase("Receipts\r\nFrom: evil@evil.test\r\nX-Injected: yes\u{0}") ?? ""
        #expect(injected == "\"Receipts From: evil@evil.test X-Injected: yes\"")
        let accented = HeaderText.phrase("Élégant café") ?? ""
        #expect(accented.hasPrefix("=?UTF-8?B?") && EncodedWords.decode(accented) == "Élégant café")
        let long = HeaderText.phrase(String(repeating: "é", count: 100)) ?? ""
        #expect(long.components(separatedBy: "\r\n ").allSatisfy { $0.count <= 75 })
        #expect(
            EncodedWords.decode(long.replacingOccurrences(of: "\r\n ", with: " ")) == String(repeating: "é", count: 100)
        )
        #expect(HeaderText.token("a\u{0}b c\r\nd\u{e9}") == "a_b_c__d_")
        #expect(HeaderText.phrase("\r\n\u{0}") == nil)
    }

    @Test("an encoded display name that decodes to CRLF cannot add header lines to the delivered message")
    func injection() {
        let name = Data("Receipts\r\nFrom: evil@evil.test\r\nX-Injected: yes".utf8).base64EncodedString()
        let message = Array("From: =?utf-8?B?\(name)?= <news@example.com>\r\nSubject: hi\r\n\r\nbody\r\n".utf8)
        let headers = MessageHeaders(parsing: message)
        let out = String(
            decoding: RelayRewriting.delivered(
                message, headers: headers, target: RelayRulesTests.target, heloName: "c\u{0}lient", id: "id1",
                at: Date(timeIntervalSince1970: 0), overTLS: false), as: UTF8.self)
        let lines = out.components(separatedBy: "\r\n")
        #expect(!lines.contains { $0.hasPrefix("X-Injected") || $0.hasPrefix("From: evil") })
        #expect(lines.filter { $0.hasPrefix("From:") }.count == 1)
        #expect(out.hasPrefix("Received: from c_lient by"))
        #expect(!out.utf8.contains(0))
        #expect(out.utf8.split(separator: 10).allSatisfy { $0.last == 13 || $0.isEmpty })
    }
}
