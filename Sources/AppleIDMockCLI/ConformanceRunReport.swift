/// The parts of a conformance run's report (`GET /__admin/conformance/runs/{id}`) the
/// `conformance` command shows: its state, counts, cases and error.
struct ConformanceRunReport: Decodable, Sendable {
    /// One case's result.
    struct Case: Decodable, Sendable {
        var id: String
        var path: String
        var variant: String?
        var verdict: String
        var note: String?

        /// The case id with its variant: `aud-other-client [web]`.
        var name: String { id + (variant.map { " [\($0)]" } ?? "") }
    }

    var id: String
    var state: String
    var summary: [String: Int]
    var cases: [Case]
    var error: String?

    /// The verdicts in the order the summary names them.
    static let verdictOrder = ["PASS", "FAIL", "WARNING", "INFO", "SKIPPED", "INCONCLUSIVE", "ACCEPTED_RISK"]
    /// The verdicts that fail the command.
    static let failing: Set<String> = ["FAIL", "INCONCLUSIVE"]

    /// Whether the run is over.
    var isFinished: Bool { state == "finished" }

    /// Whether a CI job should fail: a `FAIL`, an `INCONCLUSIVE` or a run error.
    var failed: Bool { error != nil || cases.contains { Self.failing.contains($0.verdict) } }

    /// One progress line for a case as it arrives: `PASS          native    ok-baseline`.
    static func progressLine(_ result: Case) -> String {
        pad(result.verdict, 13) + " " + pad(result.path, 13) + " " + result.name
    }

    /// Every case as a table (verdict, path, case id [variant], note), columns as wide as their
    /// widest cell.
    var table: [String] {
        let verdict = max("VERDICT".count, cases.map(\.verdict.count).max() ?? 0)
        let path = max("PATH".count, cases.map(\.path.count).max() ?? 0)
        let name = max("CASE".count, cases.map(\.name.count).max() ?? 0)
        let row = { (cells: (String, String, String, String)) in
            [Self.pad(cells.0, verdict), Self.pad(cells.1, path), Self.pad(cells.2, name), cells.3].joined(
                separator: "  "
            ).trimmingSuffixSpaces()
        }
        return [row(("VERDICT", "PATH", "CASE", "NOTE"))]
            + cases.map { row(($0.verdict, $0.path, $0.name, $0.note ?? "")) }
    }

    /// The counts: `40 cases: 37 PASS, 1 FAIL, 2 SKIPPED`.
    var summaryLine: String {
        let known = Self.verdictOrder.filter { (summary[$0] ?? 0) > 0 }
        let others = summary.keys.filter { !Self.verdictOrder.contains($0) && (summary[$0] ?? 0) > 0 }.sorted()
        let counts = (known + others).map { "\(summary[$0] ?? 0) \($0)" }
        return "\(cases.count) cases: " + (counts.isEmpty ? "none run" : counts.joined(separator: ", "))
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}

extension String {
    /// The text without the spaces it ends with.
    fileprivate func trimmingSuffixSpaces() -> String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}
