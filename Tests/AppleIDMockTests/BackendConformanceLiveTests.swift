import Foundation
import Testing

/// The example backend and backend conformance runs with real pytest (`examples/backend-conformance`):
/// `test_backend.py` (the example backend against minted defects and real codes) and
/// `test_conformance_run.py` (a run against the correct backend is clean, each planted `BUG` is found
/// by exactly its cases, closed ports, bad configs and `knownFindings`).
@Suite("Backend conformance examples (Live)", .timeLimit(.minutes(10)), .tags(.live))
struct BackendConformanceLiveTests {
    /// Whether `python3` has what the example backend and its tests import.
    static let pythonReady = PythonScript.canImport(["jwt", "cryptography", "requests", "pytest"])
    /// CI runs this suite whatever this machine has (and fails without Python's modules).
    static let required = !(ProcessInfo.processInfo.environment["CI"] ?? "").isEmpty
    static let skipReason: Comment =
        "needs python3 with PyJWT, cryptography, requests and pytest: python3 -m pip install -r examples/backend-conformance/requirements.txt"

    @Test("examples/backend-conformance passes", .enabled(if: pythonReady || required, skipReason))
    func examplesPass() async throws {
        try #require(Self.pythonReady, Self.skipReason)
        let executable = try #require(ChildServers.executable)
        let (status, output) = try await PythonScript.run(
            ["-m", "pytest", "-q", "-p", "no:cacheprovider", "examples/backend-conformance"],
            environment: ["APPLE_ID_MOCK_BINARY": executable, "PYTHONDONTWRITEBYTECODE": "1"])
        #expect(status == 0, "examples/backend-conformance:\n\(output)")
        #expect(output.contains(" passed"))
    }
}
