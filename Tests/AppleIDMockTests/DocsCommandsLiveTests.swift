import Foundation
import Testing

/// The shell walkthroughs of the README and `docs/`, run as they are written against a real server:
/// each page's `sh` blocks in one bash session (`set -eu`), with `BASE` pointed at the server and
/// `swift run -q apple-id-mock` at the built command. If a page's commands stop working, this fails.
@Suite("Walkthroughs of the README and docs/, run as written", .timeLimit(.minutes(4)), .tags(.live))
struct DocsCommandsLiveTests {
    /// One walkthrough: `sh` blocks of pages, run in order in one session against one server
    /// (started with `arguments`), and what their output shows.
    struct Walkthrough: Sendable, CustomTestStringConvertible {
        var blocks: [(page: String, index: Int)]
        var arguments: [String] = []
        var expected: [String]
        var testDescription: String { blocks.map { "\($0.page) #\($0.index)" }.joined(separator: " + ") }
    }

    static let walkthroughs: [Walkthrough] = [
        Walkthrough(
            blocks: [("README.md", 2)],
            expected: [
                #"name="user" value="#, #""refresh_token":"#,
                #"{"error":"invalid_grant","error_description":"The code has already been used."}"#, "\n200\n",
                #""offsetSeconds""#,
            ]),
        Walkthrough(
            blocks: [
                ("docs/backend-ios-login.md", 0), ("docs/backend-ios-login.md", 1),
                ("docs/backend-notifications.md", 0),
            ],
            expected: [#""identityToken""#, #""id_token":"#, #""notificationIds""#, #""attempts""#]),
        Walkthrough(
            blocks: [("docs/backend-ios-login.md", 2)],
            expected: [
                #""state" : "upgrade-1""#, #""email" : null"#, #""fullName" : null"#, #""id_token":"#,
                #""nonce":""#, #""state" : "authorized""#,
            ]),
        Walkthrough(
            blocks: [("docs/button-images.md", 0)],
            expected: [
                "200 image/png", "89 50 4e 47 0d 0a 1a 0a 00 00 00 0d 49 48 44 52 00 00 01 90 00 00 00 58",
                "Page Not Found", "\n404\n",
            ]),
        Walkthrough(
            blocks: [("docs/backend-app-transfer.md", 0)], arguments: ["--scenario", "transfer"],
            expected: [
                #""transfer_sub":""#, #""is_private_email":true"#, "transferred", #"{"error":"invalid_request"}"#,
            ]),
        Walkthrough(
            blocks: [("docs/web-popup.md", 0), ("docs/web-popup.md", 3)],
            expected: [
                "Content-Type: text/javascript; charset=utf-8", "&quot;method&quot;:&quot;oauthDone&quot;",
                #""discoveryIssuer" : "https://account.apple.com""#, #"{"issuer":"https://account.apple.com","#,
            ]),
        Walkthrough(
            blocks: [("docs/control-plane.md", 0)],
            expected: ["HTTP/1.1 503", #""expected" : "reject""#, #""verdict""#]),
        Walkthrough(blocks: [("docs/control-plane.md", 1)], expected: verifyExpected),
        Walkthrough(blocks: [("README.md", 3)], expected: verifyExpected),
        Walkthrough(
            blocks: [("README.md", 5)],
            expected: [#""pathPrefix" : "/ns/alice""#, #""offsetSeconds" : 86400"#, #""offsetSeconds" : 0"#]),
        Walkthrough(
            blocks: [("docs/namespaces.md", 0)],
            expected: [
                #""pathPrefix" : "/ns/alice""#, #""offsetSeconds" : 86400"#, #""type" : "account-delete""#,
                #""token_type":"Bearer""#, #""offsetSeconds" : 0"#, #""deleted" : "alice""#,
            ]),
    ]

    /// What the "Verify what your backend did" walkthrough shows.
    static let verifyExpected = [
        #""verified" : true"#, #""error" : "verification_failed""#, #""field" : "grantType""#, "\n422\n",
        #""reached" : false"#, #""settled" : true"#,
    ]

    @Test("the commands of the pages run against a real server", arguments: walkthroughs)
    func walkthroughRuns(_ walkthrough: Walkthrough) async throws {
        var script: [String] = []
        for (page, index) in walkthrough.blocks {
            let blocks = Self.shellBlocks(try String(contentsOfFile: Fixture.root + "/" + page, encoding: .utf8))
            script.append(
                try #require(blocks.indices.contains(index) ? blocks[index] : nil, "\(page) has no sh block \(index)"))
        }
        let executable = try #require(ChildServers.executable, "build apple-id-mock first")
        try await ChildServers.with { children in
            let server = try await children.start(state: "memory", arguments: walkthrough.arguments)
            let base = "http://127.0.0.1:\(server.port)"
            // The server is the test's; a line that starts one ("in another shell") or that holds a
            // placeholder for the reader to fill in (`<id>`) is left out.
            let lines = script.joined(separator: "\n").split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("swift run apple-id-mock serve") && !$0.contains("/<id>") }
            let runnable =
                "set -eu\nBASE=\(base)\n"
                + lines.joined(separator: "\n").replacingOccurrences(
                    of: "BASE=http://127.0.0.1:8080", with: "BASE=" + base
                )
                .replacingOccurrences(of: "swift run -q apple-id-mock", with: "'\(executable)'")
            let (status, output) = try await Self.bash(runnable, directory: children.file("walkthrough"))
            #expect(status == 0, "the walkthrough failed:\n\(output)")
            for expected in walkthrough.expected {
                #expect(output.contains(expected), "missing \(expected) in:\n\(output)")
            }
            await ServerProcess.stop(server)
        }
    }

    @Test(
        "the pytest example of \"Verify what your backend did\" passes against a real server",
        .enabled(if: PythonScript.canImport(["pytest", "requests", "testcontainers"])),
        arguments: ["docs/verify-python.md", "docs/control-plane.md"])
    func pytestExample(page: String) async throws {
        let text = try String(contentsOfFile: Fixture.root + "/" + page, encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## Verify what your backend did").dropFirst().first)
        let start = try #require(section.range(of: "```python\n"))
        let end = try #require(section.range(of: "```\n", range: start.upperBound..<section.endIndex))
        try await ChildServers.with { children in
            let server = try await children.start(state: "memory")
            let folder = children.file("pytest-example")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let file = folder + "/test_verify_example.py"
            try String(section[start.upperBound..<end.lowerBound]).write(
                toFile: file, atomically: true, encoding: .utf8)
            let (status, output) = try await PythonScript.run(
                ["-m", "pytest", "-q", "-p", "no:cacheprovider", file],
                environment: [
                    "APPLE_ID_MOCK_URL": "http://127.0.0.1:\(server.port)",
                    "PYTHONPATH": Fixture.root + "/clients/python/src",
                ])
            #expect(status == 0, "\(output)")
            await ServerProcess.stop(server)
        }
    }

    /// The bodies of a page's ```sh blocks, in order.
    static func shellBlocks(_ text: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```sh" {
                current = []
            } else if let lines = current, line.hasPrefix("```") {
                blocks.append(lines.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Runs `script` with bash in a fresh `directory`, the bundled scenarios and keys named by the
    /// environment; returns the exit status and the combined output.
    static func bash(_ script: String, directory: String) async throws -> (Int32, String) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let output = URL(fileURLWithPath: directory).appendingPathComponent("output.log")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("APPLE_ID_MOCK_") }
            .merging([
                "APPLE_ID_MOCK_SCENARIOS_DIR": Fixture.scenariosDirectory,
                "APPLE_ID_MOCK_KEYS_DIR": Fixture.keysDirectory,
            ]) { _, new in new }
        process.standardOutput = handle
        process.standardError = handle
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        return (status, try String(contentsOf: output, encoding: .utf8))
    }
}
