import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One `apple-id-mock serve` child process: the real executable on a free port of 127.0.0.1, with
/// its stdout and stderr in files, stopped with SIGTERM or SIGKILL. Start it through `ChildServers`,
/// which kills whatever still runs when the test ends.
final class ServerProcess: Sendable {
    let process: Process
    /// The port it listens on, read from its `listening on` line.
    let port: Int
    let stderrPath: String
    let stdoutPath: String

    fileprivate init(process: Process, port: Int, stderrPath: String, stdoutPath: String) {
        self.process = process
        self.port = port
        self.stderrPath = stderrPath
        self.stdoutPath = stdoutPath
    }

    /// What it wrote on stdout so far (its start-up line).
    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }

    /// HTTP to this server.
    var client: LiveClient { LiveClient(baseURL: "http://127.0.0.1:\(port)") }

    /// What it wrote on stderr so far (its log).
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Asks it to stop (SIGTERM), as a container runtime does.
    func terminate() {
        ChildServers.signal(process, SIGTERM)
    }

    /// Kills it at once (SIGKILL, `kill -9`): no shutdown code runs.
    func kill() {
        ChildServers.signal(process, SIGKILL)
    }

    /// Waits up to `seconds` for it to exit; returns how long that took, or nil if it still runs.
    func waitForExit(seconds: Double) async -> Duration? {
        await ChildServers.waitForExit(process, seconds: seconds)
    }

    /// How it ended: a normal exit with its status, or the signal that ended it.
    var ending: ChildServers.Ending { ChildServers.Ending(process) }

    /// Sends SIGTERM to each server and checks that it ends normally, within 5 s.
    static func stop(_ servers: ServerProcess..., sourceLocation: SourceLocation = #_sourceLocation) async {
        for server in servers { server.terminate() }
        for server in servers {
            #expect(await server.waitForExit(seconds: 5) != nil, sourceLocation: sourceLocation)
            #expect(server.ending.isNormalAfterSIGTERM, "\(server.ending)", sourceLocation: sourceLocation)
        }
    }
}

/// The child processes of one test. `ChildServers.with { children in … }` starts servers and
/// one-shot commands through `children`, and kills (SIGKILL) and reaps every child still running
/// when the body ends, passed or failed, so no process outlives its test; then it removes the
/// test's scratch folder (the children's logs and any `file(_:)`).
final class ChildServers: Sendable {
    private let started = Mutex<[Process]>([])
    private let folder: URL

    private init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "apple-id-mock-children-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// A path in this test's scratch folder (removed when the test ends), e.g. for a state file.
    func file(_ name: String) -> String {
        folder.appendingPathComponent(name).path
    }

    /// The built `apple-id-mock` executable: `swift build` / `swift test` put it beside the test
    /// bundle (on Linux the test runner itself; on macOS the `.xctest` bundle), else in the
    /// package's `.build/debug`.
    static let executable: String? = {
        var folders = [
            URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        ]
        folders += Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }.map {
            $0.bundleURL.deletingLastPathComponent()
        }
        folders.append(URL(fileURLWithPath: Fixture.root + "/.build/debug"))
        return folders.map { $0.appendingPathComponent("apple-id-mock").path }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }()

    /// Runs `body` with a fresh set of children and kills the survivors afterwards.
    static func with<T>(_ body: (ChildServers) async throws -> T) async throws -> T {
        let children = ChildServers()
        do {
            let result = try await body(children)
            children.finish()
            return result
        } catch {
            children.finish()
            throw error
        }
    }

    /// Starts `apple-id-mock serve` on a free port with the bundled scenarios and keys and `--state
    /// state`, and returns once it prints the port it listens on. `seconds` only guards against a
    /// server that never starts: a test waits as long as start-up takes, which on a loaded machine
    /// (the suite runs alongside compilers and `stress-ng`) was seen to reach 20 s.
    func start(
        state: String, arguments extra: [String] = [], environment: [String: String] = [:], seconds: Double = 90
    ) async throws -> ServerProcess {
        let (process, stdout, stderr) = try launch(Self.serveArguments(state: state) + extra, environment: environment)
        var port: Int?
        // A guard, not a timing: the deadline is not scaled by the patience.
        _ = try await Waiting.until(deadline: .now + .seconds(seconds), every: .milliseconds(20)) {
            port = Self.listeningPort((try? String(contentsOfFile: stdout, encoding: .utf8)) ?? "")
            return port != nil || !process.isRunning
        }
        if let port {
            return ServerProcess(process: process, port: port, stderrPath: stderr, stdoutPath: stdout)
        }
        Self.signal(process, SIGKILL)
        let log = (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? ""
        Issue.record("apple-id-mock --state \(state) did not start listening; stderr:\n\(log)")
        throw CancellationError()
    }

    /// A command that should end by itself: what it printed and how it ended.
    struct Finished: Sendable {
        var stdout: String
        var stderr: String
        var ending: Ending
        var duration: Duration
        /// The non-empty lines of stderr.
        var stderrLines: [Substring] { stderr.split(separator: "\n", omittingEmptySubsequences: true) }
    }

    /// Runs `apple-id-mock` with `arguments` until it exits (killed after `seconds`, which fails the
    /// test: a guard against a command that never ends, not a timing), with `environment` added to
    /// the test's own (whose `APPLE_ID_MOCK_*` variables are left out).
    func run(
        _ arguments: [String], environment: [String: String] = [:], directory: String? = nil, seconds: Double = 90
    ) async throws -> Finished {
        let (process, stdout, stderr) = try launch(arguments, environment: environment, directory: directory)
        guard let duration = await Self.waitForExit(process, seconds: seconds) else {
            Self.signal(process, SIGKILL)
            Issue.record("apple-id-mock \(arguments.joined(separator: " ")) still ran after \(seconds) s")
            throw CancellationError()
        }
        return Finished(
            stdout: (try? String(contentsOfFile: stdout, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? "", ending: Ending(process),
            duration: duration)
    }

    /// The arguments of `serve` on a free port of 127.0.0.1 with the repository's scenarios and keys,
    /// and `--state state` unless it is nil.
    static func serveArguments(state: String?) -> [String] {
        [
            "serve", "--port", "0", "--host", "127.0.0.1", "--scenarios-dir", Fixture.scenariosDirectory,
            "--keys-dir", Fixture.keysDirectory,
        ] + (state.map { ["--state", $0] } ?? [])
    }

    private func launch(_ arguments: [String], environment: [String: String] = [:], directory: String? = nil) throws
        -> (
            Process, stdout: String, stderr: String
        )
    {
        guard let executable = Self.executable else {
            Issue.record("no apple-id-mock executable beside the tests: run swift build --build-tests")
            throw CancellationError()
        }
        let name = "child-\(UUID().uuidString.prefix(8))"
        let stdout = file(name + "-stdout.log")
        let stderr = file(name + "-stderr.log")
        _ = FileManager.default.createFile(atPath: stdout, contents: nil)
        _ = FileManager.default.createFile(atPath: stderr, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: stdout))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: stderr))
        defer {
            try? out.close()
            try? err.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        // Only the flags count: variables from the test's own environment do not leak in.
        process.environment = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("APPLE_ID_MOCK_")
        }.merging(environment) { _, new in new }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        try started.withLock { started in
            try process.run()
            started.append(process)
        }
        return (process, stdout, stderr)
    }

    private static func listeningPort(_ stdout: String) -> Int? {
        guard let range = stdout.range(of: #"listening on https?://[^ ]+:\d+"#, options: .regularExpression),
            let colon = stdout[range].lastIndex(of: ":")
        else { return nil }
        return Int(stdout[range][stdout.index(after: colon)...])
    }

    /// Kills every child still running, waits until each is gone (no cooperative waiting: this also
    /// runs when the test was cancelled), and removes the scratch folder.
    private func finish() {
        let processes = started.withLock { $0 }
        for process in processes where process.isRunning { Self.signal(process, SIGKILL) }
        for process in processes {
            _ = Waiting.blocking(deadline: .now + .seconds(10)) { !process.isRunning }
        }
        try? FileManager.default.removeItem(at: folder)
    }

    fileprivate static func signal(_ process: Process, _ signal: Int32) {
        guard process.isRunning else { return }
        _ = kill(process.processIdentifier, signal)
    }

    fileprivate static func waitForExit(_ process: Process, seconds: Double) async -> Duration? {
        let start = ContinuousClock.now
        let exited = try? await Waiting.until(seconds: seconds, every: .milliseconds(10)) { !process.isRunning }
        return exited == true ? ContinuousClock.now - start : nil
    }

    /// How a child ended.
    enum Ending: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        init(_ process: Process) {
            self =
                process.terminationReason == .uncaughtSignal
                ? .signalled(process.terminationStatus) : .exited(process.terminationStatus)
        }

        /// Exit status 0, or the signal a SIGTERM handler re-raises: a normal end after SIGTERM.
        var isNormalAfterSIGTERM: Bool { self == .exited(0) || self == .signalled(SIGTERM) }

        var description: String {
            switch self {
            case .exited(let status): "exit status \(status)"
            case .signalled(let signal): "signal \(signal)"
            }
        }
    }
}

/// Waiting for something another process or task does: the one poll loop of the tests (a wait
/// that suspends, and the same loop blocking the thread for clean-up that must not suspend).
enum Waiting {
    /// How much longer than its nominal `seconds` a wait for an event may take before it counts as
    /// never coming (`APPLE_ID_MOCK_TEST_PATIENCE`, default 4). A wait ends as soon as its event comes,
    /// so this costs nothing when things work; it keeps a loaded machine (compilers, `stress-ng`)
    /// from turning a slow event into a failure.
    static let patience: Double = {
        let text = ProcessInfo.processInfo.environment["APPLE_ID_MOCK_TEST_PATIENCE"] ?? ""
        return Double(text).flatMap { $0 >= 1 ? $0 : nil } ?? 4
    }()

    /// Checks `condition` every `interval` (`.zero`: at every turn of the scheduler, for what
    /// another task in this process does) until it holds (true) or `seconds` (times `patience`)
    /// pass (false). `condition` runs in the caller's isolation (an actor may read its own state).
    static func until(
        seconds: Double, every interval: Duration = .milliseconds(50), isolation: isolated (any Actor)? = #isolation,
        _ condition: () async throws -> Bool
    ) async throws -> Bool {
        try await until(deadline: .now + .seconds(seconds * patience), every: interval, condition)
    }

    /// `until(seconds:)` with a deadline the patience does not scale: for a guard against what never
    /// happens (a server that never starts), not for a timing.
    static func until(
        deadline: ContinuousClock.Instant, every interval: Duration = .milliseconds(50),
        isolation: isolated (any Actor)? = #isolation, _ condition: () async throws -> Bool
    ) async throws -> Bool {
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            if interval == .zero { await Task.yield() } else { try await Task.sleep(for: interval) }
        }
        return try await condition()
    }

    /// The same loop blocking the thread between checks, for clean-up that must not suspend (it also
    /// runs once the test was cancelled, when a `Task.sleep` would end at once): true once
    /// `condition` holds, false at `deadline`.
    static func blocking(
        deadline: ContinuousClock.Instant, every interval: Duration = .milliseconds(10), _ condition: () -> Bool
    ) -> Bool {
        let microseconds = UInt32(
            interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(microseconds)
        }
        return condition()
    }
}
