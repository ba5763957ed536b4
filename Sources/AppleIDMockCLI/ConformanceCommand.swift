import AppleIDMock
import ArgumentParser
import Foundation

/// `apple-id-mock conformance --server URL --config FILE`: starts a backend conformance run on a
/// running mock, shows each case as it is judged (stderr), then the table of every case and the
/// counts (stdout); `--report` and `--junit` keep the report. Exits 1 on a `FAIL`, an
/// `INCONCLUSIVE` or a run error, 2 when the run could not start or be followed.
struct ConformanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance", abstract: "Run backend conformance against your backend through a running mock.",
        discussion:
            "Exit status: 0 when every case passed (or was a warning, info, skipped or accepted risk), 1 on a FAIL, an INCONCLUSIVE or a run error, 2 when the run could not be started or followed (a config the server refuses, a server out of reach)."
    )

    @Option(help: "The mock server's base URL (e.g. http://127.0.0.1:8080)")
    var server: String

    @Option(help: "The run's config (JSON), posted to /__admin/conformance/runs")
    var config: String

    @Option(help: "Write the run's report (JSON) to this file")
    var report: String?

    @Option(help: "Write the run's report as JUnit XML to this file")
    var junit: String?

    @Option(
        name: .customLong("admin-token"),
        help: ArgumentHelp("The server's admin token (default: \(EnvironmentDefaults.adminToken))"))
    var adminToken: String?

    /// How long one read of the report waits on the server for the run to finish.
    static let waitSeconds = 1

    func run() async throws {
        let plane = ConformanceControlPlane(
            server: server, adminToken: adminToken ?? EnvironmentDefaults.value(EnvironmentDefaults.adminToken))
        let id = try await start(plane, body: try readConfig())
        let (report, raw) = try await follow(plane, run: id)
        for line in report.table { print(line) }
        print(report.summaryLine)
        if let error = report.error { Self.say("run \(id) stopped: \(error)") }
        if let path = self.report { try Self.write(raw, to: path, what: "the report") }
        if let path = junit {
            let answer = try await Self.call { () async throws(ConformanceControlPlane.Unreachable) in
                try await plane.get("/__admin/conformance/runs/\(id)/junit")
            }
            guard answer.status == 200 else { throw Self.fail("reading the JUnit XML: \(answer.errorMessage)") }
            try Self.write(answer.body, to: path, what: "the JUnit XML")
        }
        if report.failed { throw ExitCode(1) }
    }

    /// The config file's bytes, refused if they are not JSON.
    private func readConfig() throws -> Data {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: config))
        } catch {
            throw Self.fail("cannot read the config \(config): \(error.localizedDescription)")
        }
        do {
            _ = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw Self.fail("the config \(config) is not valid JSON")
        }
        return data
    }

    /// Starts the run; its id.
    private func start(_ plane: ConformanceControlPlane, body: Data) async throws -> String {
        let answer = try await Self.call { () async throws(ConformanceControlPlane.Unreachable) in
            try await plane.post("/__admin/conformance/runs", json: body)
        }
        /// The answer to the start.
        struct Started: Decodable {
            var id: String
            var namespace: String?
        }
        if answer.status == 400, let (_, message) = answer.controlPlaneError {
            // The server names each field with its JSON path, one problem a line.
            let problems = message.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
            throw Self.fail("the server refused the config \(config):\n" + problems)
        }
        guard answer.status == 201 else { throw Self.fail("the run did not start: \(answer.errorMessage)") }
        guard let started = try? JSONDecoder().decode(Started.self, from: answer.body) else {
            throw Self.fail("the server's answer to the start is not a run: \(answer.errorMessage)")
        }
        Self.say("run \(started.id) started" + (started.namespace.map { " in namespace \($0)" } ?? ""))
        return started.id
    }

    /// Reads the report until the run finishes, printing each case as it arrives; the finished
    /// report, decoded and as the server sent it.
    private func follow(_ plane: ConformanceControlPlane, run id: String) async throws -> (
        ConformanceRunReport, Data
    ) {
        var shown = 0
        while true {
            let answer = try await Self.call { () async throws(ConformanceControlPlane.Unreachable) in
                try await plane.get("/__admin/conformance/runs/\(id)?waitSeconds=\(Self.waitSeconds)")
            }
            guard answer.status == 200 else { throw Self.fail("reading run \(id): \(answer.errorMessage)") }
            let report: ConformanceRunReport
            do {
                report = try JSONDecoder().decode(ConformanceRunReport.self, from: answer.body)
            } catch {
                throw Self.fail("the report of run \(id) cannot be read: \(error)")
            }
            for result in report.cases.dropFirst(shown) { Self.say(ConformanceRunReport.progressLine(result)) }
            shown = max(shown, report.cases.count)
            if report.isFinished { return (report, answer.body) }
        }
    }

    /// Runs `body`; a server out of reach ends the command with status 2.
    private static func call(
        _ body: () async throws(ConformanceControlPlane.Unreachable) -> ConformanceControlPlane.Answer
    ) async throws -> ConformanceControlPlane.Answer {
        do {
            return try await body()
        } catch {
            throw fail(error.message)
        }
    }

    private static func write(_ data: Data, to path: String, what: String) throws {
        do {
            try data.write(to: URL(fileURLWithPath: path))
        } catch {
            throw fail("cannot write \(what) to \(path): \(error.localizedDescription)")
        }
    }

    /// Says `message` on stderr and returns the exit status 2 to throw.
    private static func fail(_ message: String) -> ExitCode {
        say("apple-id-mock conformance: " + message)
        return ExitCode(2)
    }

    /// One line on stderr.
    private static func say(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
