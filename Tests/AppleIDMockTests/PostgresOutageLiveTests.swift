import Foundation
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// A PostgreSQL that goes away while the mock serves, and comes back: `/auth/*` and the control plane
/// answer 503 naming the cause (at once, not after a wait per request), nothing is lost, and service
/// resumes by itself. Runs its own throwaway cluster, which it stops and resumes.
@Suite("PostgreSQL outage while serving", .enabled(if: TestPostgres.isAvailable), .timeLimit(.minutes(2)), .tags(.live))
struct PostgresOutageLiveTests {
    /// Runs `scripts/postgres-test-cluster.sh COMMAND DIR` and returns its stdout. Spawned and
    /// waited for directly: the PostgreSQL server the script leaves running keeps Foundation's
    /// `Process` from ever seeing the script end.
    @discardableResult
    static func cluster(_ command: String, _ directory: String) throws -> String {
        let output = directory + ".\(command).out"
        let script =
            "'\(Fixture.root)/scripts/postgres-test-cluster.sh' \(command) '\(directory)' >'\(output)' 2>/dev/null"
        let words: [String] = ["/bin/bash", "-c", script]
        var arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) }
        arguments.append(nil)
        defer {
            for argument in arguments { free(argument) }
        }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/bash", nil, nil, arguments, environ) == 0 else {
            throw StoreOpeningError(location: directory, cause: "cannot run postgres-test-cluster.sh")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        defer { try? FileManager.default.removeItem(atPath: output) }
        guard status == 0 else {
            throw StoreOpeningError(
                location: directory, cause: "postgres-test-cluster.sh \(command) failed (\(status))")
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("503 while the database is down, then service resumes with the state it had")
    func outage() async throws {
        let directory = TestPaths.temporaryFile("cluster")
        let url = try Self.cluster("start", directory)
        defer {
            _ = try? Self.cluster("stop", directory)
            try? FileManager.default.removeItem(atPath: directory)
        }
        try await ChildServers.with { children in
            let server = try await children.start(state: url)
            let client = server.client
            let secret = try await Fixture.secret(now: Date())
            let code = try #require(try await client.signIn("maria")["code"])
            let refresh = try #require(
                try await client.exchange(code: code, secret: secret).json["refresh_token"] as? String)

            // The throwaway cluster runs with synchronous_commit off and stops with `-m immediate`:
            // the commits above are flushed first (no pause for its WAL writer: a synchronous commit).
            try await TestPostgres.flushCommits(url: url)
            try Self.cluster("stop", directory)
            let token = try await client.refresh(refresh, secret: secret)
            #expect(token.status == 503)
            #expect(token.json["error"] as? String == "temporarily_unavailable")
            #expect((token.json["error_description"] as? String)?.contains("state store is unavailable") == true)
            let authorize = try await client.get("/auth/authorize?client_id=com.example.web")
            #expect(authorize.status == 503)
            let admin = try await client.get("/__admin/settings")
            #expect(admin.status == 503 && admin.json["error"] as? String == "store_unavailable")

            try Self.cluster("resume", directory)
            var last: TestResponse?
            let resumed = try await Waiting.until(seconds: 30) {
                last = try await client.refresh(refresh, secret: secret)
                return last?.status == 200
            }
            #expect(
                resumed,
                "service did not resume after the database came back: \(last?.status.code ?? 0) \(last?.text ?? "")")
            #expect(try await client.get("/__admin/settings").status == 200)
        }
    }
}
