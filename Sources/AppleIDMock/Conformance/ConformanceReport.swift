#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a backend conformance run found, case by case: the answer of
/// `GET /__admin/conformance/runs/{id}`, the source of its JUnit XML and of the CLI's table.
struct ConformanceReport: Encodable, Sendable {
    /// A case's verdict.
    enum Verdict: String, Encodable, Sendable, CaseIterable {
        /// The backend did what a correct backend does.
        case pass = "PASS"
        /// A "must" case answered wrongly: a hole (accepted what Apple never sends) or an outage
        /// waiting to happen (refused what Apple sends).
        case fail = "FAIL"
        /// A "should" case or a policy answered the discouraged way.
        case warning = "WARNING"
        /// A policy answered the way noted without judging it.
        case info = "INFO"
        /// The case cannot apply to this config or path (the reason says why).
        case skipped = "SKIPPED"
        /// The answer says nothing: no answer, or the backend had locked the client out.
        case inconclusive = "INCONCLUSIVE"
        /// A `FAIL` the config lists in `knownFindings`: reported, not failing CI.
        case acceptedRisk = "ACCEPTED_RISK"
    }

    /// The request a case sent, as sent (tokens in full: they are the mock's own test credentials).
    struct SentRequest: Encodable, Sendable {
        var method: String
        var url: String
        var headers: [String: String]
        var body: String
    }

    /// What came back.
    struct Received: Encodable, Sendable {
        var status: Int?
        /// The first 2,000 characters of the body.
        var body: String?
        /// Why nothing came (a refused connection, a timeout).
        var error: String?
    }

    /// What the backend did at the mock during the case, from the run's journal (and, for the
    /// JWKS the backend fetches at the unprefixed `/auth/keys`, the default namespace's).
    struct JournalNote: Encodable, Sendable {
        var endpoint: String
        var status: Int?
        var outcome: String
        /// The namespace whose journal holds it, when not the run's (`default`).
        var namespace: String? = nil
        /// What to keep in mind reading it.
        var note: String? = nil
    }

    /// What a path's calibration learnt: how the valid credential and a credential no backend may
    /// accept (not a JWS at all) read under the path's acceptance rule.
    struct Calibration: Encodable, Sendable {
        var path: String
        /// How the valid credential read: `accepted`, `rejected` or `none`.
        var valid: String
        /// The kid the run signs with on this path (another than the run's first when only that one
        /// was accepted).
        var signingKid: String?
        /// How the credential that is not a JWS read (`nil`: not sent, the valid one was refused).
        var invalid: String?
        /// Whether the path's cases were sent and judged.
        var usable: Bool
        var note: String
        /// The invalid credential's request and answer.
        var request: SentRequest?
        var response: Received?
    }

    /// One case's result (one line per variant).
    struct CaseResult: Encodable, Sendable {
        var id: String
        var path: String
        var variant: String?
        var verdict: Verdict
        var expected: ConformanceCase.Expectation
        /// What the backend did: `accepted`, `rejected`, or `none`.
        var observed: String
        var request: SentRequest?
        var response: Received?
        var journal: [JournalNote]
        /// Why the case matters.
        var why: String
        /// Why this verdict.
        var note: String
        /// A curl line that replays the request.
        var curl: String?
        /// When its credential was sent: the journal entries from then until the run's next send
        /// are its (not in the report).
        var sentAt: Date? = nil

        private enum CodingKeys: String, CodingKey {
            case id, path, variant, verdict, expected, observed, request, response, journal, why, note, curl
        }
    }

    var id: String
    var state: String
    var namespace: String
    var startedAt: String
    var finishedAt: String?
    var summary: [String: Int]
    var cases: [CaseResult]
    /// Each path's calibration, in the order driven.
    var calibration: [Calibration] = []
    /// Why the run could not go on, if it could not.
    var error: String?

    /// Whether a CI job should fail: a `FAIL` or an `INCONCLUSIVE`.
    var failed: Bool { cases.contains { $0.verdict == .fail || $0.verdict == .inconclusive } || error != nil }

    /// `summary` counted from `cases`.
    static func summary(of cases: [CaseResult]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for verdict in Verdict.allCases { counts[verdict.rawValue] = 0 }
        for result in cases { counts[result.verdict.rawValue, default: 0] += 1 }
        return counts
    }

    /// The report as JUnit XML: one test case per result; a `FAIL` or `INCONCLUSIVE` is a failure,
    /// a `SKIPPED` skipped, the others pass with their verdict in the output.
    var junit: String {
        var lines = [#"<?xml version="1.0" encoding="UTF-8"?>"#]
        let failures = cases.filter { $0.verdict == .fail || $0.verdict == .inconclusive }.count
        let skipped = cases.filter { $0.verdict == .skipped }.count
        lines.append(
            #"<testsuite name="apple-id-mock backend conformance \#(Self.xml(id))" tests="\#(cases.count)" failures="\#(failures)" errors="\#(error == nil ? 0 : 1)" skipped="\#(skipped)">"#
        )
        if let error {
            lines.append(#"  <testcase classname="run" name="run"><error message="\#(Self.xml(error))"/></testcase>"#)
        }
        for result in cases {
            let name = result.id + (result.variant.map { " [\($0)]" } ?? "")
            lines.append(#"  <testcase classname="\#(Self.xml(result.path))" name="\#(Self.xml(name))">"#)
            let message = "\(result.verdict.rawValue): \(result.note)"
            switch result.verdict {
            case .fail, .inconclusive:
                lines.append(#"    <failure message="\#(Self.xml(message))">\#(Self.xml(result.why))</failure>"#)
            case .skipped:
                lines.append(#"    <skipped message="\#(Self.xml(result.note))"/>"#)
            default:
                lines.append(#"    <system-out>\#(Self.xml(message))</system-out>"#)
            }
            lines.append("  </testcase>")
        }
        lines.append("</testsuite>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` escaped for XML text and attributes (as for HTML; XML 1.0 has no place for control
    /// characters but tab and line breaks, so those become spaces).
    static func xml(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(scalar.value < 0x20 && ![0x09, 0x0A, 0x0D].contains(scalar.value) ? " " : scalar)
        }
        return String(scalars).htmlEscaped
    }
}
