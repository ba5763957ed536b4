import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `apple-id-mock conformance` as a CI job runs it: against the repository's example backend
/// (`examples/backend-conformance/backend.py`), correct and with `BUG=no-aud`, through a mock
/// started as a child process; and with a config the server refuses or a server out of reach.
@Suite("The conformance command (Live)", .timeLimit(.minutes(5)), .tags(.live))
struct ConformanceCommandLiveTests {
    /// Whether `python3` has what the example backend imports.
    static let pythonReady = PythonScript.canImport(["jwt", "cryptography", "requests"])
    /// CI runs these tests whatever this machine has (and fails without Python's modules).
    static let required = !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty
    static let skipReason: Comment =
        "needs python3 with PyJWT, cryptography and requests: python3 -m pip install -r examples/backend-conformance/requirements.txt"

    @Test(
        "a correct backend: exit 0, progress, a table of every case with the counts, the report and JUnit written",
        .enabled(if: pythonReady || required, skipReason))
    func correctBackend() async throws {
        try #require(Self.pythonReady, Self.skipReason)
        try await ChildServers.with { children in
            let mock = try await children.start(state: "memory")
            let backend = try await ExampleBackend.start(
                mockURL: mock.client.baseURL, log: children.file("backend.log"))
            defer { backend.stop() }
            let finished = try await Self.runConformance(
                children, server: mock.client.baseURL, backendPort: backend.port)
            #expect(finished.ending == .exited(0), "\(finished.stderr)\n\(finished.stdout)")

            let report = try Self.readReport(children)
            #expect(report.state == "finished" && report.error == nil)
            #expect(report.cases.count > 20, "\(report.cases.count) cases")
            #expect(!report.cases.contains { $0.verdict == "FAIL" || $0.verdict == "INCONCLUSIVE" })
            let rows = finished.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
            for result in report.cases {
                let row = "\(result.verdict) \(result.path) \(result.name)"
                #expect(rows.contains { $0.hasPrefix(row) }, "no row \(row)")
            }
            let summary = try #require(rows.last)
            #expect(summary.hasPrefix("\(report.cases.count) cases: \(report.summary["PASS"] ?? 0) PASS"), "\(summary)")
            #expect(!summary.contains("FAIL"))
            let progress = finished.stderr.split(separator: "\n").map {
                $0.split(separator: " ").joined(separator: " ")
            }
            #expect(progress.contains("PASS native ok-baseline"), "\(finished.stderr)")

            let junit = try String(contentsOfFile: children.file("j.xml"), encoding: .utf8)
            #expect(junit.contains("<testsuite ") && junit.contains(#"failures="0""#), "\(junit.prefix(300))")
            #expect(junit.components(separatedBy: "<testcase ").count - 1 == report.cases.count)
        }
    }

    @Test(
        "a backend that never checks aud (BUG=no-aud): exit 1 and aud-other-client FAIL in the table and the report",
        .enabled(if: pythonReady || required, skipReason))
    func noAudBackend() async throws {
        try #require(Self.pythonReady, Self.skipReason)
        try await ChildServers.with { children in
            let mock = try await children.start(state: "memory")
            let backend = try await ExampleBackend.start(
                mockURL: mock.client.baseURL, bug: "no-aud", log: children.file("backend.log"))
            defer { backend.stop() }
            let finished = try await Self.runConformance(
                children, server: mock.client.baseURL, backendPort: backend.port)
            #expect(finished.ending == .exited(1), "\(finished.stderr)\n\(finished.stdout)")
            let rows = finished.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
            #expect(rows.contains { $0.hasPrefix("FAIL native aud-other-client ") }, "\(finished.stdout)")
            let report = try Self.readReport(children)
            let failed = report.cases.filter { $0.verdict == "FAIL" }.map(\.id)
            #expect(failed.contains("aud-other-client"), "\(failed)")
            let summary = try #require(rows.last)
            #expect(summary.contains(", \(failed.count) FAIL"), "\(summary)")
            let junit = try String(contentsOfFile: children.file("j.xml"), encoding: .utf8)
            #expect(junit.contains(#"failures="\#(failed.count)""#), "\(junit.prefix(300))")
        }
    }

    @Test("a config the server refuses exits 2 naming the field; a server out of reach exits 2 with one line")
    func refusedAndUnreachable() async throws {
        try await ChildServers.with { children in
            let mock = try await children.start(state: "memory")
            let config = children.file("bad.json")
            let body = Self.config(backendPort: 9).replacingOccurrences(of: "{{identityToken}}", with: "token")
            try body.write(toFile: config, atomically: true, encoding: .utf8)
            let refused = try await children.run(
                [
                    "conformance", "--server", mock.client.baseURL, "--config", config, "--report",
                    children.file("r.json"),
                ])
            #expect(refused.ending == .exited(2), "\(refused.ending)")
            #expect(refused.stderr.contains("$.native.body"), "\(refused.stderr)")
            #expect(refused.stderr.contains("{{identityToken}}"))
            #expect(refused.stdout.isEmpty && !FileManager.default.fileExists(atPath: children.file("r.json")))

            let unreachable = try await children.run(
                ["conformance", "--server", "http://127.0.0.1:1", "--config", config])
            #expect(unreachable.ending == .exited(2), "\(unreachable.ending)")
            #expect(unreachable.stderrLines.count == 1, "\(unreachable.stderr)")
            #expect(unreachable.stderr.contains("cannot reach http://127.0.0.1:1"))
        }
    }

    /// The brief's config for the example backend on `backendPort`.
    static func config(backendPort port: Int) -> String {
        let base = "http://127.0.0.1:\(port)"
        return #"""
            {"clientId": "com.example.app", "otherClientIds": ["com.example.web"], "user": "sam",
             "native": {"url": "\#(base)/api/auth/apple/native", "body": "{\"identityToken\": \"{{identityToken}}\", \"rawNonce\": \"{{rawNonce}}\", \"userIdentifier\": \"{{userIdentifier}}\", \"user\": {{user}}}"},
             "exchange": {"url": "\#(base)/api/auth/apple/code", "body": "{\"authorizationCode\": \"{{authorizationCode}}\"}"},
             "nonce": "sha256-hex", "accepted": {"status": "2xx", "userPointer": "/sub"}}
            """#
    }

    /// Runs `conformance` against the backend on `backendPort`, writing `r.json` and `j.xml`.
    static func runConformance(_ children: ChildServers, server: String, backendPort: Int) async throws
        -> ChildServers.Finished
    {
        let config = children.file("config.json")
        try Self.config(backendPort: backendPort).write(toFile: config, atomically: true, encoding: .utf8)
        return try await children.run(
            [
                "conformance", "--server", server, "--config", config, "--report", children.file("r.json"),
                "--junit", children.file("j.xml"),
            ], seconds: 180)
    }

    /// The report the command wrote to `r.json`.
    static func readReport(_ children: ChildServers) throws -> Report {
        try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: children.file("r.json"))))
    }

    /// The parts of a run's report these tests read.
    struct Report: Decodable {
        /// One case's result.
        struct Case: Decodable {
            var id: String
            var path: String
            var variant: String?
            var verdict: String

            /// As the table names it: `alg-none [none]`.
            var name: String { id + (variant.map { " [\($0)]" } ?? "") }
        }

        var state: String
        var summary: [String: Int]
        var cases: [Case]
        var error: String?
    }
}

/// `examples/backend-conformance/backend.py` as a child process on a free port, its output in a
/// file; `stop()` ends it (SIGTERM, then SIGKILL) and waits for it.
private final class ExampleBackend: Sendable {
    let process: Process
    let port: Int

    private init(process: Process, port: Int) {
        self.process = process
        self.port = port
    }

    /// Starts the backend against the mock at `mockURL` with `bug` planted, and returns once it
    /// prints the port it listens on.
    static func start(mockURL: String, bug: String = "", log: String) async throws -> ExampleBackend {
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "examples/backend-conformance/backend.py"]
        process.currentDirectoryURL = URL(fileURLWithPath: Fixture.root)
        process.environment = ProcessInfo.processInfo.environment.merging([
            "MOCK_URL": mockURL, "PORT": "0", "BUG": bug, "JWKS_MIN_INTERVAL": "0.2", "PYTHONUNBUFFERED": "1",
        ]) { _, new in new }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let backend = { (port: Int) in ExampleBackend(process: process, port: port) }
        var text = ""
        let started = try await Waiting.until(seconds: 15) {
            text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return text.contains("backend listening on") || !process.isRunning
        }
        guard started, process.isRunning, let port = Self.listeningPort(text) else {
            backend(0).stop()
            Issue.record("the example backend did not start:\n\(text)")
            throw CancellationError()
        }
        return backend(port)
    }

    /// Ends the process and waits until it is gone.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        _ = Waiting.blocking(deadline: .now + .seconds(5)) { !process.isRunning }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    private static func listeningPort(_ text: String) -> Int? {
        guard let range = text.range(of: #"backend listening on http://[^ \n]+:\d+"#, options: .regularExpression),
            let colon = text[range].lastIndex(of: ":")
        else { return nil }
        return Int(text[range][text.index(after: colon)...])
    }
}
