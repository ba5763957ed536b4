import Foundation
import Testing

@testable import AppleIDMock

/// The control plane on two replicas sharing PostgreSQL, and across a restart on SQLite: fault
/// counts, rotated keys and the journal are the same whichever replica a call reaches.
@Suite("Control plane on durable stores", .timeLimit(.minutes(3)), .tags(.live))
struct ControlPlaneReplicaLiveTests {
    @Test(
        "replicas: 'the next 4 token calls' means 4 across both; a rotation and a cleared journal hold on both",
        .enabled(if: TestPostgres.isAvailable))
    func replicas() async throws {
        let url = try await TestPostgres.freshDatabase()
        try await ChildServers.with { children in
            let (a, b) = try await PostgresReplicaLiveTests.startPair(children, url: url)
            _ = try await a.client.json("/__admin/faults", #"{"endpoint":"token","status":503,"times":4}"#)
            var statuses: [Int] = []
            for index in 0..<8 {
                let client = (index.isMultiple(of: 2) ? a : b).client
                statuses.append(try await client.postForm("/auth/token", [("grant_type", "refresh_token")]).status)
            }
            #expect(statuses.filter { $0 == 503 }.count == 4 && statuses.prefix(4).allSatisfy { $0 == 503 })
            let rotated = try await a.client.send("POST", "/__admin/keys/rotate")
            let kid = try #require(rotated.json["kid"] as? String)
            let minted = try await b.client.json(
                "/__admin/mint/id-token", #"{"user":"sam","clientId":"com.example.web"}"#)
            #expect((minted.json["header"] as? [String: Any])?["kid"] as? String == kid)
            #expect(try await b.client.get("/auth/keys").text.contains(kid))
            // A's four entries are in once A has written its buffer (every 100 ms, or 250 ms when busy).
            #expect(
                try await Waiting.until(seconds: 5) {
                    (try await b.client.get("/__admin/journal?endpoint=token").json["entries"] as? [Any])?.count == 8
                })
            #expect(try await a.client.send("DELETE", "/__admin/journal").status == 200)
            _ = try await b.client.postForm("/auth/token", [("grant_type", "refresh_token")])
            // B writes its entry within 250 ms; the ones cleared never come back.
            #expect(
                try await Waiting.until(seconds: 5) {
                    (try await a.client.get("/__admin/journal").json["entries"] as? [Any])?.count == 1
                })
            // The ones cleared never come back. No pause to let them "not come": a later call on B is
            // the marker. B's journal writer flushes its entries in order, so once the marker's entry
            // shows on A, anything B still held from before the clear would have been written too.
            _ = try await b.client.get("/auth/keys")
            var endpoints: [String] = []
            _ = try await Waiting.until(seconds: 5) {
                let entries = try await a.client.get("/__admin/journal").json["entries"] as? [[String: Any]] ?? []
                endpoints = entries.compactMap { $0["endpoint"] as? String }
                return endpoints.count >= 2
            }
            #expect(endpoints == ["keys", "token"], "only the two calls made after the clear")
            await ServerProcess.stop(a, b)
        }
    }

    @Test(
        "replicas: a call whose fault rule fired, then saw the record change on the other replica, is answered once",
        .enabled(if: TestPostgres.isAvailable))
    func changedAfterTheFaultFired() async throws {
        let url = try await TestPostgres.freshDatabase()
        try await ChildServers.with { children in
            let (a, b) = try await PostgresReplicaLiveTests.startPair(children, url: url)
            // A latency long enough for the patch below to land within it on a loaded machine.
            let latency = Int(1_500 * Waiting.patience)
            _ = try await a.client.json(
                "/__admin/faults", #"{"endpoint":"authorize","latencyMilliseconds":\#(latency)}"#)
            _ = try await b.client.get("/auth/keys")  // B reads the record with the rule
            let pairs = [
                ("client_id", Fixture.webClient), ("redirect_uri", Fixture.redirect),
                ("response_type", "code id_token"), ("response_mode", "form_post"), ("scope", "name email"),
                ("state", "s"), ("login_hint", "sam"), ("nonce", "n"),
            ]
            // The rule fires (its count is kept), then the record changes during its latency.
            async let call = { (try await b.client.postForm("/auth/authorize", pairs), ContinuousClock.now) }()
            #expect(
                try await Waiting.until(seconds: 5) {
                    let rules = try await b.client.get("/__admin/faults").json["faults"] as? [[String: Any]]
                    return rules?.first?["fired"] as? Int == 1
                }, "the rule fired")
            let patched = try await a.client.json(
                "/__admin/settings", #"{"idTokenLifetimeSeconds": 600}"#, method: "PATCH")
            let patchedAt = ContinuousClock.now
            #expect(patched.status == 200)
            let (answer, answeredAt) = try await call
            #expect(patchedAt < answeredAt, "the record changed after the call was answered: nothing was tested")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            let rules = try await b.client.get("/__admin/faults").json["faults"] as? [[String: Any]]
            #expect(rules?.first?["fired"] as? Int == 1, "the call is counted once")
            await ServerProcess.stop(a, b)
        }
    }

    @Test("SQLite: a rotated key, fault rules and the journal survive kill -9")
    func sqliteRestart() async throws {
        try await ChildServers.with { children in
            let state = "sqlite:" + children.file("state.db")
            let first = try await children.start(state: state)
            let kid = try #require(try await first.client.send("POST", "/__admin/keys/rotate").json["kid"] as? String)
            _ = try await first.client.json("/__admin/faults", #"{"endpoint":"keys","status":500,"times":2}"#)
            #expect(try await first.client.get("/auth/keys").status == 500)
            _ = try await first.client.get("/__admin/journal")  // written before the kill
            first.kill()
            _ = await first.waitForExit(seconds: 5)
            let second = try await children.start(state: state)
            #expect(try await second.client.get("/auth/keys").status == 500)  // the second of two
            let keys = try await second.client.get("/auth/keys")
            #expect(keys.status == 200 && keys.text.contains(kid))
            let minted = try await second.client.json(
                "/__admin/mint/id-token", #"{"user":"sam","clientId":"com.example.web"}"#)
            #expect((minted.json["header"] as? [String: Any])?["kid"] as? String == kid)
            let journal = try #require(
                try await second.client.get("/__admin/journal?endpoint=keys").json["entries"] as? [Any])
            #expect(journal.count == 3)
        }
    }
}
