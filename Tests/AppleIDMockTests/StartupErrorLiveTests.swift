import Foundation
import Testing

@testable import AppleIDMock

/// `apple-id-mock serve` with a state store it cannot open: it exits non-zero at once with one line
/// on stderr naming the store (any password masked) and the cause.
@Suite("Start-up errors of the state store", .timeLimit(.minutes(1)), .tags(.live))
struct StartupErrorLiveTests {
    static let unreachable = "postgres://mock:secretpw@127.0.0.1:1/db"

    /// Checks that `finished` is a refusal in one line that names `location` and says `cause`, and
    /// that it came at once: within 5 s, or on a loaded machine within three times what
    /// `apple-id-mock validate` (which reads the same scenarios and keys, then exits) takes now.
    static func expectRefusal(
        _ finished: ChildServers.Finished, naming location: String, cause: String, hiding secret: String? = nil,
        children: ChildServers, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        #expect(finished.ending != .exited(0), "\(finished.ending)", sourceLocation: sourceLocation)
        #expect(finished.stderrLines.count == 1, "stderr:\n\(finished.stderr)", sourceLocation: sourceLocation)
        #expect(finished.stderr.contains(location), "stderr: \(finished.stderr)", sourceLocation: sourceLocation)
        #expect(finished.stderr.contains(cause), "stderr: \(finished.stderr)", sourceLocation: sourceLocation)
        if let secret {
            #expect(!finished.stderr.contains(secret), "the password leaked", sourceLocation: sourceLocation)
        }
        #expect(!finished.stdout.contains("listening"), sourceLocation: sourceLocation)
        guard finished.duration >= .seconds(5) else { return }
        let validate = try? await children.run(
            ["validate", Fixture.scenariosDirectory, "--keys-dir", Fixture.keysDirectory], seconds: 60)
        let bound = max(.seconds(5), (validate?.duration ?? .seconds(5)) * 3)
        #expect(
            finished.duration < bound, "took \(finished.duration); validate took \(validate?.duration ?? .zero)",
            sourceLocation: sourceLocation)
    }

    @Test("nothing listens at the PostgreSQL URL (flag and environment variable)")
    func unreachablePostgres() async throws {
        try await ChildServers.with { children in
            let flag = try await children.run(ChildServers.serveArguments(state: Self.unreachable))
            await Self.expectRefusal(
                flag, naming: "postgres://mock:***@127.0.0.1:1/db", cause: "refused", hiding: "secretpw",
                children: children)
            let variable = try await children.run(
                ChildServers.serveArguments(state: nil), environment: ["APPLE_ID_MOCK_STATE": Self.unreachable])
            await Self.expectRefusal(
                variable, naming: "postgres://mock:***@127.0.0.1:1/db", cause: "refused", hiding: "secretpw",
                children: children)
        }
    }

    @Test("an unknown kind of store")
    func unknownStore() async throws {
        try await ChildServers.with { children in
            let finished = try await children.run(ChildServers.serveArguments(state: "bogus:x"))
            await Self.expectRefusal(finished, naming: "bogus:x", cause: "unknown state store", children: children)
        }
    }

    @Test("a wrong PostgreSQL password", .enabled(if: TestPostgres.isAvailable))
    func wrongPassword() async throws {
        let url = try #require(TestPostgres.url, "CI=true but APPLE_ID_MOCK_TEST_POSTGRES_URL is not set")
        guard case .postgres(let server) = try StoreLocation(parsing: url) else {
            Issue.record("not a postgres URL: \(url)")
            return
        }
        let wrong = "wrong-\(UUID().uuidString.prefix(8))"
        let location = "postgres://\(server.user):***@\(server.host):\(server.port)/\(server.database)"
        try await ChildServers.with { children in
            let finished = try await children.run(
                ChildServers.serveArguments(
                    state: "postgres://\(server.user):\(wrong)@\(server.host):\(server.port)/\(server.database)"))
            await Self.expectRefusal(
                finished, naming: location, cause: "password authentication failed", hiding: wrong, children: children)
        }
    }
}
