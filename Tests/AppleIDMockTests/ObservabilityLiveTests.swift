import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// What an operator and a test author observe on a running server: `/metrics` read by Prometheus's
/// own parser, the trace context of notification posts, a waiting read cut short by shutdown, and
/// a waiting read on one PostgreSQL replica woken by another's calls.
@Suite("Observability, live", .timeLimit(.minutes(4)), .tags(.live))
struct ObservabilityLiveTests {
    @Test(
        "/metrics behind the admin token, parsed by prometheus_client after traffic",
        .enabled(if: PythonScript.canImport(["prometheus_client"])))
    func prometheusScrape() async throws {
        var configuration = Fixture.configuration()
        configuration.adminToken = "metrics-token"
        let app = try await buildApplication(configuration: configuration)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let secret = try await Fixture.secret(now: Date())
            for _ in 0..<3 {
                let code = try #require(try await client.signIn("sam")["code"])
                #expect(try await client.exchange(code: code, secret: secret).status == .ok)
            }
            #expect(try await client.exchange(code: "spent", secret: secret).status == .badRequest)
            #expect(try await client.execute(uri: "/metrics", method: .get).status == .unauthorized)
            let expectations = """
                [["appleidmock_apple_calls_total", {"endpoint": "token", "grant_type": "authorization_code", "outcome": "ok"}, 3],
                 ["appleidmock_apple_calls_total", {"endpoint": "token", "grant_type": "authorization_code", "outcome": "invalid_grant"}, 1],
                 ["appleidmock_apple_calls_total", {"endpoint": "authorize", "grant_type": "none", "outcome": "ok"}, 3],
                 ["appleidmock_apple_call_duration_seconds_count", {"endpoint": "token", "grant_type": "authorization_code"}, 4],
                 ["appleidmock_issued_total", {"kind": "access_token"}, 3],
                 ["appleidmock_issued_total", {"kind": "code"}, 3],
                 ["appleidmock_live_grants", {"kind": "refresh_token"}, 3],
                 ["appleidmock_notifications", {"status": "pending"}, 0]]
                """
            let (status, output) = try await PythonScript.run([
                "Tests/metrics/scrape.py", "http://127.0.0.1:\(port)/metrics", "metrics-token", expectations,
            ])
            #expect(status == 0, "\(output)")
        }
    }

    @Test("each notification post carries a traceparent of its own, and the journal records it")
    func notificationTraceparent() async throws {
        let inbox = NotificationInbox()
        try await inbox.serve { port in
            let app = try await buildApplication(configuration: Fixture.configuration())
            try await app.test(.live) { client in
                let scenario = try LifecycleLiveTests.scenario(notificationUrl: "http://127.0.0.1:\(port)/notify")
                #expect(
                    try await client.postJSON("/__admin/scenarios?name=live&activate=true", scenario).status == .ok)
                #expect(try await LifecycleLiveTests.nativeAuthorize(client, user: "sam").status == .ok)
                #expect(
                    try await client.postJSON("/__admin/events", #"{"type":"account-delete","user":"sam"}"#).status
                        == .ok)
                let settled = try await client.execute(
                    uri: "/__admin/notifications?state=settled&waitSeconds=30", method: .get)
                #expect(settled.json["settled"] as? Bool == true)
                let arrival = try #require(await inbox.waitForArrivals(1).first)
                let sent = try #require(arrival.traceparent)
                #expect(TraceContext.valid(sent) == sent)
                let journaled = try await client.execute(
                    uri: "/__admin/journal?endpoint=notifications&minCount=1&waitSeconds=30", method: .get)
                let entry = try #require((journaled.json["entries"] as? [[String: Any]])?.first)
                #expect(entry["traceparent"] as? String == sent)
            }
        }
    }

    @Test("SIGTERM ends a waiting read at once: answered 200, count not reached", arguments: TestPostgres.storeKinds)
    func shutdownEndsWaits(store: StoreKind) async throws {
        try await ChildServers.with { children in
            let server = try await children.start(state: try await store.freshStateArgument(in: children))
            let started = ContinuousClock.now
            async let waited = server.client.get("/__admin/journal?endpoint=revoke&minCount=1&waitSeconds=60")
            // The read is admitted and waiting before the signal.
            let waiting = try await Waiting.until(seconds: 10) {
                (try? await server.client.get("/metrics").text.contains("appleidmock_waiting_reads 1")) == true
            }
            #expect(waiting)
            server.terminate()
            let answer: LiveClient.Answer
            do {
                answer = try await waited
            } catch {
                Issue.record("the waiting read got no answer: \(error); stderr:\n\(server.stderr)")
                throw error
            }
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.json["reached"] as? Bool == false)
            #expect(ContinuousClock.now - started < .seconds(20))
            let took = await server.waitForExit(seconds: 20)
            #expect(took != nil)
        }
    }

    @Test(
        "a read waiting on one PostgreSQL replica is woken by a call the other answers",
        .enabled(if: TestPostgres.isAvailable))
    func replicaWakes() async throws {
        let url = try await TestPostgres.freshDatabase()
        let secret = try await Fixture.secret(now: Date())
        try await ChildServers.with { children in
            let (a, b) = try await PostgresReplicaLiveTests.startPair(children, url: url)
            let started = ContinuousClock.now
            async let waited = b.client.get("/__admin/journal?endpoint=token&minCount=1&waitSeconds=60")
            async let verified = b.client.json(
                "/__admin/journal/verify", #"{"match":{"endpoint":"token","outcome":"ok"},"waitSeconds":60}"#)
            // Both reads are admitted and waiting on B before A answers the calls.
            #expect(
                try await Waiting.until(seconds: 10) {
                    (try? await b.client.get("/metrics").text.contains("appleidmock_waiting_reads 2")) == true
                })
            let fields = try await a.client.signIn("sam")
            #expect(try await a.client.exchange(code: try #require(fields["code"]), secret: secret).status == 200)
            let answer = try await waited
            #expect(answer.json["reached"] as? Bool == true, "\(answer.text)")
            #expect(try await verified.status == 200)
            #expect(ContinuousClock.now - started < .seconds(30))
        }
    }
}
