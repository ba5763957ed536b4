import AppleIDMock

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MockAppleID {
    /// A backend conformance run's report (docs/backend-conformance.md): what the mock sent to the
    /// backend on each path and how each answer was judged.
    public struct ConformanceReport: Sendable, Decodable {
        /// The run's id (`GET /__admin/conformance/runs/{id}`).
        public var id: String
        /// `running` or `finished`.
        public var state: String
        /// The namespace the run worked in (`conformance-<id>`).
        public var namespace: String
        /// When the run started, and when it finished (ISO 8601, the server's wall clock).
        public var startedAt: String
        public var finishedAt: String?
        /// How many results each verdict has (`PASS`, `FAIL`, `WARNING`, …).
        public var summary: [String: Int]
        /// Every result, in the order judged.
        public var cases: [ConformanceResult]
        /// Why the run stopped before its end, if it did.
        public var error: String?

        /// The results a CI job fails on: `FAIL` and `INCONCLUSIVE`.
        public var failing: [ConformanceResult] {
            cases.filter { ConformanceFailed.failingVerdicts.contains($0.verdict) }
        }

        /// Throws `ConformanceFailed` naming every failing case (or the run's error); returns the
        /// report otherwise.
        @discardableResult
        public func requireConformant() throws(ConformanceFailed) -> ConformanceReport {
            if !failing.isEmpty || error != nil { throw ConformanceFailed(report: self) }
            return self
        }
    }

    /// One result of a conformance run.
    public struct ConformanceResult: Sendable, Decodable {
        /// The case id (`aud-other-client`, …): a contract, as `knownFindings` and `cases` name them.
        public var id: String
        /// `native`, `exchange`, `web` or `notifications`.
        public var path: String
        /// Which form of the case (`None` for `alg-none`, …), when it has several.
        public var variant: String?
        /// `PASS`, `FAIL`, `WARNING`, `INFO`, `SKIPPED`, `INCONCLUSIVE` or `ACCEPTED_RISK`.
        public var verdict: String
        /// What a correct backend does: `accept` or `reject`.
        public var expected: String
        /// What the backend did: `accepted`, `rejected` or `none`.
        public var observed: String
        /// Why this verdict.
        public var note: String
        /// Why the case matters, and the field incident behind it.
        public var why: String
        /// What the mock sent the backend (none for a case not sent).
        public var request: ConformanceRequest?
        /// What came back (or why nothing did).
        public var response: ConformanceResponse?
        /// What the backend did at the mock during the case: code exchanges, key fetches, …
        public var journal: [ConformanceJournalNote]
        /// A curl line that sends the same request again (none for a case not sent).
        public var curl: String?

        /// `FAIL native aud-other-client [variant]: note`.
        public var line: String {
            "\(verdict) \(path) \(id)" + (variant.map { " [\($0)]" } ?? "") + ": \(note)"
        }
    }

    /// A request a conformance run sent to the backend.
    public struct ConformanceRequest: Sendable, Decodable {
        public var method: String
        public var url: String
        public var headers: [String: String]
        public var body: String
    }

    /// The backend's answer to a case: its status and the start of its body, or the error that
    /// stood in for an answer (a refused connection, a timeout).
    public struct ConformanceResponse: Sendable, Decodable {
        public var status: Int?
        public var body: String?
        public var error: String?
    }

    /// A call the backend made to the mock while a case ran, from the run's journal.
    public struct ConformanceJournalNote: Sendable, Decodable {
        /// The mock's endpoint called (`/auth/token`, `/auth/keys`, …).
        public var endpoint: String
        /// The status the mock answered.
        public var status: Int?
        /// The journal's outcome word (`ok`, `invalid_grant`, …).
        public var outcome: String
    }

    /// A conformance run found cases a CI job fails on (`FAIL`, `INCONCLUSIVE`), or stopped with
    /// an error: its description names each, one line apiece.
    public struct ConformanceFailed: Error, CustomStringConvertible, Sendable {
        /// The verdicts that fail a CI job.
        static let failingVerdicts: Set<String> = ["FAIL", "INCONCLUSIVE"]
        /// The run's whole report.
        public var report: ConformanceReport

        public var description: String {
            var lines = ["backend conformance run \(report.id): \(report.failing.count) case(s) failed"]
            if let error = report.error { lines.append("  the run stopped: \(error)") }
            lines += report.failing.map { "  " + $0.line }
            return lines.joined(separator: "\n")
        }
    }

    /// The answer to a run's start.
    private struct StartedRun: Decodable {
        var id: String
    }

    /// Runs a backend conformance run with `config` (its JSON text: `clientId`, the paths `native`,
    /// `exchange`, `web`, `notifications`, `accepted`, …; docs/backend-conformance.md) to its end
    /// and returns the report. The mock sends to the URLs the config names; on the exchange and web
    /// paths the backend must reach this mock (`.live`, at `baseURL`). A config the mock refuses
    /// throws `MockAppleIDError.unexpectedAnswer` with each field named; a run still going after
    /// `timeout`, `MockAppleIDError.timedOut`. Check the report with `requireConformant()`.
    public func conformance(_ config: String, timeout: Duration = .seconds(300)) async throws -> ConformanceReport {
        let started = try await succeeding(.post, AdminPath.absolute(AdminPath.conformanceRuns), body: .json(config))
            .decode(StartedRun.self)
        let path = AdminPath.absolute(AdminPath.conformanceRuns) + "/" + started.id
        let deadline = ContinuousClock.now + timeout
        while true {
            // A waiting read answers when the run finishes, or after at most `longestWait`.
            let seconds = Self.waitSeconds(until: deadline) ?? "0"
            let report = try await call(.get, path + "?waitSeconds=" + seconds, as: ConformanceReport.self)
            if report.state == "finished" { return report }
            if ContinuousClock.now >= deadline {
                throw MockAppleIDError.timedOut("conformance run \(started.id) to finish within \(timeout)")
            }
        }
    }

    /// `conformance(_:timeout:)` with the config as any `Encodable` value.
    public func conformance(_ config: some Encodable, timeout: Duration = .seconds(300)) async throws
        -> ConformanceReport
    {
        try await conformance(String(decoding: try JSONEncoder().encode(config), as: UTF8.self), timeout: timeout)
    }

    /// Runs `config` and throws `ConformanceFailed` naming each failing case; returns the report
    /// when nothing failed.
    @discardableResult
    public func assertConformant(_ config: String, timeout: Duration = .seconds(300)) async throws
        -> ConformanceReport
    {
        try await conformance(config, timeout: timeout).requireConformant()
    }
}
