import Testing

@testable import AppleIDMock

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `bool-string-false` judged by what the backend says of the email (`emailVerifiedPointer`): the
/// string "false" must not verify it.
@Suite("Backend conformance: bool-string-false and emailVerifiedPointer")
struct ConformanceEmailVerifiedTests {
    /// A JSON answer signing a user in with `verified` as its `emailVerified`.
    private static func answer(_ verified: String) -> ConformanceAcceptance.Answer {
        .init(status: 200, headers: [], body: #"{"user": {"sub": "001", "emailVerified": \#(verified)}}"#)
    }

    @Test("the pointer reads a JSON boolean or the strings true and false, nothing else")
    func reading() {
        let rule = ConformanceConfig.Acceptance(status: "2xx", emailVerifiedPointer: "/user/emailVerified")
        #expect(ConformanceAcceptance.read(Self.answer("false"), by: rule).emailVerified == false)
        #expect(ConformanceAcceptance.read(Self.answer("true"), by: rule).emailVerified == true)
        #expect(ConformanceAcceptance.read(Self.answer(#""false""#), by: rule).emailVerified == false)
        #expect(ConformanceAcceptance.read(Self.answer(#""yes""#), by: rule).emailVerified == nil)
        #expect(ConformanceAcceptance.read(Self.answer("0"), by: rule).emailVerified == nil)
        #expect(ConformanceAcceptance.read(Self.answer("false"), by: .any2xx).emailVerified == nil)
        // The pointer says nothing of acceptance.
        #expect(ConformanceAcceptance.read(Self.answer(#""yes""#), by: rule).accepted)
    }

    @Test("signed in unverified passes; verified, or unreadable, is a WARNING saying which")
    func verdicts() {
        func judged(_ verified: Bool?) -> (ConformanceReport.Verdict, String) {
            let seen = ConformanceJudge.Seen(
                reading: .init(accepted: true, user: "001", emailVerified: verified), error: nil, tokenSub: "001",
                claimedSub: nil, status: 200, readsUser: true)
            let judged = ConformanceJudge.verdict(.boolStringFalse, on: .native, seen, knownFindings: [])
            return (judged.verdict, judged.note)
        }
        #expect(judged(false).0 == .pass)
        #expect(judged(true).0 == .warning && judged(true).1.contains("counted as verified"))
        #expect(judged(nil).0 == .warning && judged(nil).1.contains("emailVerifiedPointer"))
        // A refusal passes whatever the pointer.
        let refused = ConformanceJudge.Seen(
            reading: .init(accepted: false), error: nil, tokenSub: "001", claimedSub: nil, status: 401)
        #expect(ConformanceJudge.verdict(.boolStringFalse, on: .web, refused, knownFindings: []).verdict == .pass)
    }

    @Test("the config takes emailVerifiedPointer as a JSON pointer, and names it when it is not one")
    func config() {
        func read(_ pointer: String) -> (ConformanceConfig?, [String]) {
            var reader = JSONReader()
            let config = ConformanceConfig.read(
                .object([
                    "clientId": .string("com.example.app"),
                    "native": .object([
                        "url": .string("http://127.0.0.1:3000/login"),
                        "body": .string(#"{"identityToken":"{{identityToken}}"}"#),
                    ]),
                    "accepted": .object(["emailVerifiedPointer": .string(pointer)]),
                ]), reader: &reader)
            return (config, reader.problems.map { "\($0.path): \($0.reason)" })
        }
        #expect(read("/emailVerified").0?.accepted.emailVerifiedPointer == "/emailVerified")
        #expect(read("emailVerified").1 == ["$.accepted.emailVerifiedPointer: a JSON pointer begins with / (RFC 6901)"])
    }
}
