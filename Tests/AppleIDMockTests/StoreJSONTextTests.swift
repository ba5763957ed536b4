import Foundation
import Testing

@testable import AppleIDMock

/// The JSON written directly for the values a store writes most is byte for byte what
/// `StoreCoding.encoder` writes, reads back as the same value, and names every stored property
/// (a field added to the type and not to its writer fails here).
@Suite("Store JSON written directly, as the encoder writes it")
struct StoreJSONTextTests {
    /// Text with every kind of character the writer escapes or keeps.
    static let awkward = "a \"quoted\" \\ back/slash\n\r\t\u{08}\u{0C}\u{01}\u{1F} é 🍎 \u{2028}"

    static let fullCode = AuthorizationCodeRecord(
        code: "c\(awkward)", clientId: "com.example.web", appGroupId: "group", userKey: "maria",
        redirectUri: "https://rp.example/cb?x=1&y=/2", nonce: "n-0", codeChallenge: "abc_-",
        codeChallengeMethod: "S256", issuedAt: Date(timeIntervalSince1970: 1_764_229_200.123_456),
        expiresAt: Date(timeIntervalSince1970: 1_764_229_500), authTime: Date(timeIntervalSince1970: 0.1),
        consentGeneration: -3, redeemedAt: Date(timeIntervalSince1970: 1_764_229_201.999_999_9))

    static let sparseCode = AuthorizationCodeRecord(
        code: "c1", clientId: "c", appGroupId: "", userKey: "u", redirectUri: nil, nonce: nil, codeChallenge: nil,
        codeChallengeMethod: nil, issuedAt: Date(timeIntervalSince1970: 1_764_229_200),
        expiresAt: Date(timeIntervalSince1970: 1_764_229_500.25), authTime: Date(timeIntervalSince1970: 1_764_229_000),
        consentGeneration: 0, redeemedAt: nil)

    static let fullEntry = JournalEntry(
        id: "0001-abc", at: Date(timeIntervalSince1970: 1_764_229_200.5),
        wallTime: Date(timeIntervalSince1970: 1_764_229_201.75),
        namespace: "team-a",
        endpoint: "token", method: "POST", grantType: "refresh_token", clientId: "com.example.web",
        clientSecretKeyId: "KEY", clientSecretTeamId: "TEAM", userKey: "maria", sub: "000123.abc",
        status: 400, outcome: .refused("invalid_grant"), reason: awkward, fault: "f1", latencyMilliseconds: 12,
        fingerprints: ["token": "fp1", "client_secret": "fp0", "Z": "\(awkward)"], issued: ["code": "fp2"],
        notificationId: "jti", notificationType: "consent-revoked", attempt: 2, url: "https://rp.example/n",
        traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")

    static let sparseEntry = JournalEntry(
        id: "2", at: Date(timeIntervalSince1970: 1), wallTime: Date(timeIntervalSince1970: 2), endpoint: "keys",
        outcome: .ok, latencyMilliseconds: 0)

    static func encoded(_ value: some Encodable) throws -> String {
        String(decoding: try StoreCoding.encoder.encode(value), as: UTF8.self)
    }

    @Test("an authorization code: the encoder's bytes, read back whole")
    func codes() throws {
        for code in [Self.fullCode, Self.sparseCode] {
            let text = StoreJSONText.encode(code)
            #expect(text == (try Self.encoded(code)))
            #expect(try StoreCoding.decoder.decode(AuthorizationCodeRecord.self, from: Data(text.utf8)) == code)
        }
    }

    // (Dates above are ones that survive epoch seconds: `Date()` may not, with either writer.)
    @Test("a journal entry, each outcome: the encoder's bytes, read back whole")
    func journalEntries() throws {
        let outcomes: [JournalOutcome] = [.ok, .refused("invalid_client"), .dropped, .http(503), .noAnswer, .failed]
        for outcome in outcomes {
            for var entry in [Self.fullEntry, Self.sparseEntry] {
                entry.outcome = outcome
                let text = StoreJSONText.encode(entry)
                #expect(text == (try Self.encoded(entry)))
                #expect(try StoreCoding.decoder.decode(JournalEntry.self, from: Data(text.utf8)) == entry)
            }
        }
    }

    @Test("every stored property is written (a new field needs its line in the writer)")
    func everyField() throws {
        let checks: [(Any, String)] = [
            (Self.fullCode, StoreJSONText.encode(Self.fullCode)),
            (Self.fullEntry, StoreJSONText.encode(Self.fullEntry)),
        ]
        for (value, text) in checks {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let properties = Mirror(reflecting: value).children.compactMap(\.label)
            #expect(Set(object.keys) == Set(properties))
        }
    }

    @Test("the SQLite journal's text for a code is the directly written JSON")
    func spaceUsesWriter() throws {
        let coding = try #require(Spaces.registeredSpace(named: Spaces.codes.name))
        #expect(try coding.encodeText(Self.fullCode) == StoreJSONText.encode(Self.fullCode))
        #expect(throws: StoreCoding.WrongType.self) { try coding.encodeText(Self.fullEntry) }
    }
}
