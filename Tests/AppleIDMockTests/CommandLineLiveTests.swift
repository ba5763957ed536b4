import Foundation
import Testing

/// The `apple-id-mock` command as a user runs it: outside the checkout each command names the
/// folder it looked in and how to set it; the admin token given as a flag is warned about.
@Suite("The command line", .timeLimit(.minutes(4)), .tags(.live))
struct CommandLineLiveTests {
    @Test(
        "run outside the checkout, every command that reads scenarios or keys names the folder and the flag or variable",
        arguments: [
            ["client-secret", "--client-id", "com.example.web"],
            ["mint", "id-token", "--user", "sam", "--client-id", "com.example.web"],
            ["serve", "--port", "0"],
        ])
    func outsideTheCheckout(arguments: [String]) async throws {
        try await ChildServers.with { children in
            let elsewhere = children.file("elsewhere")
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
            let resolved = URL(fileURLWithPath: elsewhere).resolvingSymlinksInPath().path
            let finished = try await children.run(arguments, directory: elsewhere)
            #expect(finished.ending == .exited(1), "\(finished.ending)")
            let lines = finished.stderrLines
            #expect(lines.count == 2, "\(finished.stderr)")
            let scenarios = lines.first { $0.contains("no scenarios folder") } ?? ""
            #expect(
                scenarios.contains(resolved + "/scenarios") || scenarios.contains(elsewhere + "/scenarios"),
                "\(scenarios)")
            #expect(scenarios.contains("--scenarios-dir") && scenarios.contains("APPLE_ID_MOCK_SCENARIOS_DIR"))
            let keys = lines.first { $0.contains("no keys folder") } ?? ""
            #expect(keys.contains("/keys") && keys.contains("--keys-dir") && keys.contains("APPLE_ID_MOCK_KEYS_DIR"))
            #expect(!finished.stdout.contains("listening"))
        }
    }

    @Test(
        "validate away from a checkout checks scenario files without keys, and says so; a keys folder named must exist")
    func validateWithoutKeys() async throws {
        try await ChildServers.with { children in
            let elsewhere = children.file("elsewhere")
            try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
            let missing = try await children.run(["validate"], directory: elsewhere)
            #expect(missing.ending == .exited(1), "\(missing.ending)")
            #expect(missing.stderrLines.count == 1, "only the scenarios folder: \(missing.stderr)")
            #expect(missing.stderr.contains("no scenarios folder") && missing.stderr.contains("--scenarios-dir"))

            let checked = try await children.run(["validate", Fixture.scenariosDirectory], directory: elsewhere)
            #expect(checked.ending == .exited(0), "\(checked.stderr)")
            #expect(checked.stdout.contains("OK: ") && checked.stdout.contains("default"))
            #expect(checked.stdout.contains("signing key ids not checked") && checked.stdout.contains("--keys-dir"))

            let withKeys = try await children.run(
                ["validate", Fixture.scenariosDirectory, "--keys-dir", Fixture.keysDirectory], directory: elsewhere)
            #expect(withKeys.ending == .exited(0), "\(withKeys.stderr)")
            #expect(!withKeys.stdout.contains("not checked"))

            let named = try await children.run(
                ["validate", Fixture.scenariosDirectory, "--keys-dir", "/nonexistent/keys"], directory: elsewhere)
            #expect(named.ending == .exited(1))
            #expect(named.stderr.contains("no keys folder") && named.stderr.contains("/nonexistent/keys"))
        }
    }

    @Test(
        "the executable needs neither libcurl nor libxml2 (FoundationNetworking, FoundationXML): the runtime image has neither"
    )
    func noNetworkingFoundation() throws {
        let executable = try #require(ChildServers.executable, "build apple-id-mock first")
        let readelf = Process()
        readelf.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        readelf.arguments = ["readelf", "--dynamic", "--wide", executable]
        let output = Pipe()
        readelf.standardOutput = output
        try readelf.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        readelf.waitUntilExit()
        try #require(readelf.terminationStatus == 0, "readelf --dynamic \(executable)")
        let needed = text.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(!needed.isEmpty, "\(text)")
        for library in ["libcurl", "libxml2", "FoundationNetworking", "FoundationXML"] {
            #expect(!needed.contains { $0.contains(library) }, "\(library) in \(needed)")
        }
    }

    @Test("a folder given by a variable that does not exist is named with that variable")
    func variableNamed() async throws {
        try await ChildServers.with { children in
            let finished = try await children.run(
                ["client-secret", "--client-id", "com.example.web"],
                environment: ["APPLE_ID_MOCK_SCENARIOS_DIR": "/nonexistent/scenarios"])
            #expect(finished.ending == .exited(1))
            #expect(finished.stderrLines.count == 1, "the checkout's keys/ is found: \(finished.stderr)")
            #expect(finished.stderr.contains("/nonexistent/scenarios does not exist (APPLE_ID_MOCK_SCENARIOS_DIR"))
        }
    }

    @Test("the start-up line warns when the admin token came as a flag, not when it came by variable")
    func adminTokenFlagWarning() async throws {
        try await ChildServers.with { children in
            let flagged = try await children.start(state: "memory", arguments: ["--admin-token", "t0ken-by-flag"])
            let line = flagged.stdout
            #expect(line.contains("listening on http://127.0.0.1:"))
            #expect(line.contains("warning: the admin token came as --admin-token"), "\(line)")
            #expect(line.contains("APPLE_ID_MOCK_ADMIN_TOKEN"))
            #expect(!line.contains("t0ken-by-flag") && !flagged.stderr.contains("t0ken-by-flag"), "never the token")
            let variable = try await children.start(
                state: "memory", environment: ["APPLE_ID_MOCK_ADMIN_TOKEN": "t0ken-by-variable"])
            #expect(variable.stdout.contains("listening on") && !variable.stdout.contains("warning"))
            let unauthorized = try await variable.client.get("/__admin/scenario")
            #expect(unauthorized.status == 401, "the variable is in force")
            await ServerProcess.stop(flagged, variable)
        }
    }
}
