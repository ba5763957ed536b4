import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import AppleIDMock

/// Deleting a namespace is not an outage: a call that arrives for a namespace another replica (or
/// the idle sweep) deleted, or that a delete overtakes, gets what a namespace that never held its
/// grants answers (Apple's `invalid_grant` for its codes and tokens, a fresh world for a sign-in,
/// 404 on its control plane), never a 503 saying the store is down.
@Suite("Namespaces: a deleted namespace is not an outage")
struct NamespaceDeletionTests {
    /// Two replicas on one store: both see the same namespaces, each through its own caches (a wall
    /// clock that stands still, so replica B's record cache stays stale for the whole test).
    struct Replicas {
        let a: MockServices
        let b: MockServices

        init() async throws {
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            let store = MemoryStore()
            let wall = WallClock { Fixture.start }
            a = try await MockServices.load(
                configuration: Fixture.configuration(), store: store, clock: .fixed(at: Fixture.start),
                wallClock: wall, logger: logger)
            b = try await MockServices.load(
                configuration: Fixture.configuration(), store: store, clock: .fixed(at: Fixture.start),
                wallClock: wall, logger: logger)
        }
    }

    /// A flag the deleter reads and the test sets once the workers are done.
    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        var isSet: Bool { value.load(ordering: .relaxed) }
        func set() { value.store(true, ordering: .relaxed) }
    }

    private static func application(_ services: MockServices) -> some ApplicationProtocol {
        Application(responder: NamespacePrefixResponder(router: buildRouter(services: services).buildResponder()))
    }

    /// The form_post fields of a sign-in of `user` to the web client under `prefix`.
    private static func signIn(_ client: some TestClientProtocol, _ prefix: String, _ user: String) async throws
        -> TestResponse
    {
        let pairs = [
            ("client_id", Fixture.webClient), ("redirect_uri", Fixture.redirect), ("response_type", "code id_token"),
            ("response_mode", "form_post"), ("scope", "email"), ("state", "s"), ("login_hint", user),
            ("nonce", "n"),
        ]
        return try await client.execute(
            uri: prefix + "/auth/authorize?" + FormParameters.encode(pairs), method: .get)
    }

    @Test("calls for a namespace another replica deleted: invalid_grant, a fresh sign-in, 404; never a 503")
    func deletedByAnotherReplica() async throws {
        let replicas = try await Replicas()
        let secret = try await Fixture.secret()
        // Replica A makes the namespaces and signs a user in to each.
        let (codes, refreshToken) = try await Self.application(replicas.a).test(.router) { client in
            var codes: [String: String] = [:]
            for name in ["by-code", "by-token", "sign-in", "control"] {
                #expect(try await client.postJSON("/__admin/namespaces/\(name)", "{}", method: .put).status == .created)
                let fields = Fixture.hiddenFields(
                    String(buffer: try await Self.signIn(client, "/ns/\(name)", "maria").body))
                let code: String = try #require(fields["code"])
                codes[name] = code
            }
            let exchanged = try await client.exchange(code: try #require(codes["by-token"]), secret: secret)
            #expect(exchanged.status == .ok)
            return (codes, try #require(exchanged.json["refresh_token"] as? String))
        }
        // Replica B reads the records (and opens no world of them): its caches know the namespaces.
        try await replicas.b.namespaces.refresh()
        #expect(replicas.b.namespaces.recordCache.cached("control") != nil)
        // Replica A deletes them; B's record cache is still fresh by its wall clock.
        for name in ["by-code", "by-token", "sign-in", "control"] {
            #expect(try await replicas.a.namespaces.delete(name))
        }
        try await Self.application(replicas.b).test(.router) { client in
            // The code of a deleted namespace, where the backend still sends it.
            let byCode = try await client.postForm(
                "/ns/by-code/auth/token",
                [
                    ("grant_type", "authorization_code"), ("client_id", Fixture.webClient),
                    ("client_secret", secret), ("code", try #require(codes["by-code"])),
                    ("redirect_uri", Fixture.redirect),
                ])
            #expect(byCode.status == .badRequest)
            #expect(byCode.json["error"] as? String == "invalid_grant")
            // Its refresh token, on Apple's plain URL (found by its tag, which is gone).
            let refreshed = try await client.refresh(refreshToken, secret: secret)
            #expect(refreshed.status == .badRequest)
            #expect(refreshed.json["error"] as? String == "invalid_grant")
            // A sign-in: a fresh world (the namespace is made anew, as naming it does).
            let signedIn = try await Self.signIn(client, "/ns/sign-in", "sam")
            #expect(signedIn.status == .ok)
            #expect(Fixture.hiddenFields(String(buffer: signedIn.body))["code"] != nil)
            #expect(signedIn.headers[AnsweringNamespace.header] == "sign-in")
            // The control plane: 404, and the next call knows the namespace is gone (made anew).
            let settings = try await client.execute(uri: "/ns/control/__admin/settings", method: .get)
            #expect(settings.status == .notFound)
            #expect(settings.json["error"] as? String == "not_found")
            #expect((settings.json["message"] as? String)?.contains("\"control\" was deleted") == true)
            #expect(try await client.execute(uri: "/ns/control/__admin/settings", method: .get).status == .ok)
        }
    }

    @Test(
        "a world opened for a namespace that is then deleted reads NamespaceGone; the default's missing record is an outage"
    )
    func goneWorld() async throws {
        let replicas = try await Replicas()
        try await replicas.a.namespaces.put("team", NamespaceOptions())
        let world = try await replicas.a.namespaces.state(for: "team")
        #expect(try await replicas.a.namespaces.delete("team"))
        // A world opened before the delete, read for the first time after it (a request that chose
        // it just before the delete landed).
        await #expect(throws: NamespaceGone.self) { try await world.sibling(world.scope).current() }
        await #expect(throws: NamespaceGone.self) { try await world.changeControl { _, _, _ in } }
        try await replicas.a.state.store.transaction { try await $0.delete(Spaces.control, ControlState.key) }
        await #expect(throws: StoreUnavailable.self) {
            try await replicas.a.state.sibling(.default).current()
        }
    }

    @Test("a replica forgets a namespace only once the store holds no record of it (one made anew is kept)")
    func forgetsOnlyWhatIsGone() async throws {
        let replicas = try await Replicas()
        try await replicas.a.namespaces.put("team", NamespaceOptions())
        try await replicas.b.namespaces.refresh()
        // B found a world of it gone, but A made the namespace anew meanwhile: B keeps it.
        #expect(try await replicas.a.namespaces.delete("team"))
        try await replicas.a.namespaces.put("team", NamespaceOptions())
        try await replicas.b.namespaces.forgetIfGone("team")
        #expect(replicas.b.namespaces.recordCache.cached("team") != nil)
        // Gone for good: B forgets it.
        #expect(try await replicas.a.namespaces.delete("team"))
        try await replicas.b.namespaces.forgetIfGone("team")
        #expect(replicas.b.namespaces.recordCache.cached("team") == nil)
    }

    @Test("a waiting read whose namespace is deleted while it waits answers 404, not an empty read at its deadline")
    func waitingReadOfADeletedNamespace() async throws {
        let replicas = try await Replicas()
        let watch = replicas.a.state.store.watch
        try await Self.application(replicas.a).test(.router) { client in
            #expect(try await client.postJSON("/__admin/namespaces/waits", "{}", method: .put).status == .created)
            async let read = client.execute(
                uri: "/ns/waits/__admin/journal?waitSeconds=60&minCount=1&user=nobody", method: .get)
            #expect(try await Waiting.until(seconds: 600, every: .zero) { watch.waiting(.journal) == 1 })
            #expect(try await client.execute(uri: "/__admin/namespaces/waits", method: .delete).status == .ok)
            let answer = try await read
            #expect(answer.status == .notFound)
            #expect((answer.json["message"] as? String)?.contains("\"waits\" was deleted") == true)
        }
    }

    @Test("sign-ins and code exchanges while a fixture deletes their namespace again and again: Apple's answers only")
    func deletesOvertakingCalls() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            let done = Flag()
            let seen = try await withThrowingTaskGroup(of: [String: Int].self) { group in
                // A fixture at teardown, again and again: deletes the namespace its backend works in.
                group.addTask {
                    while !done.isSet {
                        _ = try await client.execute(uri: "/__admin/namespaces/busy", method: .delete)
                        await Task.yield()
                    }
                    return [:]
                }
                for worker in 0..<4 {
                    group.addTask {
                        var outcomes: [String: Int] = [:]
                        for _ in 0..<150 {
                            let signedIn = try await Self.signIn(
                                client, "/ns/busy", ["maria", "sam", "alex", "robin"][worker])
                            var outcome = "authorize \(signedIn.status.code)"
                            if signedIn.status == .ok,
                                let code = Fixture.hiddenFields(String(buffer: signedIn.body))["code"]
                            {
                                let exchanged = try await client.postForm(
                                    "/ns/busy/auth/token",
                                    [
                                        ("grant_type", "authorization_code"), ("client_id", Fixture.webClient),
                                        ("client_secret", secret), ("code", code), ("redirect_uri", Fixture.redirect),
                                    ])
                                let error =
                                    exchanged.status == .ok ? "" : " \(exchanged.json["error"] as? String ?? "?")"
                                outcome = "token \(exchanged.status.code)\(error)"
                            }
                            outcomes[outcome, default: 0] += 1
                        }
                        return outcomes
                    }
                }
                // The workers end first; then the deleter.
                var seen: [String: Int] = [:]
                var finished = 0
                while finished < 4, let outcomes = try await group.next() {
                    seen.merge(outcomes, uniquingKeysWith: +)
                    finished += 1
                }
                done.set()
                try await group.waitForAll()
                return seen
            }
            // Every sign-in is answered (a fresh world when its namespace went), every exchange is
            // Apple's answer: the tokens, or invalid_grant for a code the delete took.
            #expect(Set(seen.keys).isSubset(of: ["token 200", "token 400 invalid_grant"]), "\(seen)")
            #expect(seen.values.reduce(0, +) == 600)
        }
    }
}
