import Foundation

/// Runs `python3` from the package root, for the suites written in Python (the Authlib relying
/// party, the dashboard's browser tests), without blocking a thread while it runs.
enum PythonScript {
    /// Whether `python3` can import every module named.
    static func canImport(_ modules: [String]) -> Bool {
        guard let (status, _) = try? runSynchronously(["-c", "import " + modules.joined(separator: ", ")]) else {
            return false
        }
        return status == 0
    }

    /// Runs `python3 arguments…` with `environment` added, and returns its exit status and
    /// combined output.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (Int32, String) {
        let (process, output) = try makeProcess(arguments, environment: environment)
        defer { try? FileManager.default.removeItem(at: output) }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        return (status, try String(contentsOf: output, encoding: .utf8))
    }

    private static func runSynchronously(_ arguments: [String]) throws -> (Int32, String) {
        let (process, output) = try makeProcess(arguments, environment: [:])
        defer { try? FileManager.default.removeItem(at: output) }
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }

    private static func makeProcess(_ arguments: [String], environment: [String: String]) throws -> (Process, URL) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("aim-py-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: Fixture.root)
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardOutput = handle
        process.standardError = handle
        return (process, output)
    }
}
