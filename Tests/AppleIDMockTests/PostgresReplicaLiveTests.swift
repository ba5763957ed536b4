import Foundation
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// Two `apple-id-mock` processes on one PostgreSQL database, as replicas behind a load balancer:
/// they share codes, settings, the clock and the scenario, redeem a code exactly once however many
/// race for it, deliver each notification exactly once, take over a delivery the other died in, and
/// a reset through one cuts short the other's delivery.
@Suite("PostgreSQL replicas", .enabled(if: TestPostgres.isAvailable), .timeLimit(.minutes(1)), .tags(.live))
struct PostgresReplicaLiveTests {
    /// Starts two replicas on `url` at once, so that both create the tables at the same time.
    static func startPair(_ children: ChildServers, url: String) async throws -> (ServerProcess, ServerProcess) {
        async let a = children.start(state: url)
        async let b = children.start(state: url)
        return try await (a, b)
    }

    @Test("a code minted on one replica is redeemed on the other, once among 100; settings and scenario are shared")
    func sharedGrantsAndControl() async throws {
        let url = try await TestPostgres.freshDatabase()
        let secret = try await Fixture.secret(now: Date())
        try await ChildServers.with { children in
            let (a, b) = try await Self.startPair(children, url: url)

            let fields = try await a.client.signIn("sam")
            let tokens = try await b.client.exchange(code: try #require(fields["code"]), secret: secret)
            #expect(tokens.status == 200, "\(tokens.text)")
            #expect(
                Fixture.claims(of: tokens.json["id_token"] as? String ?? "")["sub"] as? String
                    == IdentifierDerivation.subject(userKey: "sam", teamId: Fixture.teamId))

            let contested = try #require(try await b.client.signIn("sam")["code"])
            let answers = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                for index in 0..<100 {
                    let client = (index.isMultiple(of: 2) ? a : b).client
                    group.addTask { try await client.exchange(code: contested, secret: secret) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let summary = Dictionary(answers.map { ("\($0.status) \($0.json["error"] ?? "")", 1) }, uniquingKeysWith: +)
            #expect(answers.filter { $0.status == 200 }.count == 1, "\(summary)")
            #expect(
                answers.filter { $0.status == 400 && $0.json["error"] as? String == "invalid_grant" }.count == 99,
                "\(summary)")

            #expect(
                try await a.client.json("/__admin/settings", #"{"idTokenLifetimeSeconds": 600}"#, method: "PATCH")
                    .status == 200)
            #expect(try await b.client.get("/__admin/settings").json["idTokenLifetimeSeconds"] as? Int == 600)
            let idToken = Fixture.claims(of: try #require(try await b.client.signIn("sam")["id_token"]))
            #expect((idToken["exp"] as? Int ?? 0) - (idToken["iat"] as? Int ?? 0) == 600)

            let switched = try await a.client.json("/__admin/scenario", #"{"name":"transfer"}"#, method: "PUT")
            #expect(switched.status == 200, "\(switched.text)")
            #expect(try await b.client.get("/__admin/scenario").json["name"] as? String == "transfer")
            #expect(try await b.client.get("/__admin/settings").json["idTokenLifetimeSeconds"] as? Int == 86_400)

            #expect(try await b.client.json("/__admin/clock", #"{"advanceSeconds": 3600}"#).status == 200)
            #expect(try await a.client.get("/__admin/clock").json["offsetSeconds"] as? Double == 3600)
            await ServerProcess.stop(a, b)
        }
    }

    @Test("with two replicas running, each of 10 notifications is delivered exactly once")
    func deliveredExactlyOnce() async throws {
        let url = try await TestPostgres.freshDatabase()
        let inbox = NotificationInbox()
        try await inbox.serve { port in
            try await ChildServers.with { children in
                let (a, b) = try await Self.startPair(children, url: url)
                #expect(
                    try await a.client.activateScenario(
                        notifying: "http://127.0.0.1:\(port)/notify",
                        settings:
                            #"{"notificationRetryInitialMilliseconds": 100, "notificationRetryMaxMilliseconds": 300}"#
                    ).status == 200)
                var ids: [String] = []
                for index in 0..<10 {
                    let client = (index.isMultiple(of: 2) ? a : b).client
                    #expect(try await client.nativeAuthorize("sam").status == 200)
                    ids.append(
                        try await client.json(
                            "/__admin/events", #"{"type":"consent-revoked","user":"sam","appGroup":"example"}"#
                        ).notificationId())
                }
                #expect(
                    try await Waiting.until(seconds: 10) {
                        Set(await inbox.arrivalCounts().keys).isSuperset(of: ids)
                    })
                // No pause to let a second delivery "not happen": one would come from a retry (due one
                // first-retry delay, as the settings say, after an attempt) or from the other replica
                // claiming the same notification, which it would do no later than a later one. So wait
                // out the retry delay from now, then queue a marker and wait for it: once it arrived,
                // a second delivery of any of the ten had its turn.
                try await QuietWindow.wait(until: Date().addingTimeInterval(try await a.client.firstRetryDelay()))
                let marker = try await a.client.queueMarker()
                #expect(await inbox.waitForArrivals(of: marker, seconds: 10), "the marker arrives")
                #expect(
                    await inbox.arrivalCounts().filter { $0.key != marker }
                        == Dictionary(uniqueKeysWithValues: ids.map { ($0, 1) }))
                let records = try await b.client.notifications().filter { $0["id"] as? String != marker }
                #expect(records.count == 10)
                for record in records {
                    #expect(record["status"] as? String == "delivered" && (record["attempts"] as? [Any])?.count == 1)
                }
                await ServerProcess.stop(a, b)
            }
        }
    }

    @Test("a delivery in flight on a replica killed with -9 is delivered by the other once its lease ends")
    func leaseTakeover() async throws {
        let url = try await TestPostgres.freshDatabase()
        let inbox = NotificationInbox(hangFirst: 1)
        // The lease is the attempt's time limit + 2 s. The limit outlasts starting B and killing A
        // with room to spare: under a full CI run, with a limit of 4 s, A's attempt once timed out
        // (and A retried) before B had started.
        let lease = 10.0
        try await inbox.serve { port in
            try await ChildServers.with { children in
                let a = try await children.start(state: url)
                #expect(
                    try await a.client.activateScenario(
                        notifying: "http://127.0.0.1:\(port)/notify",
                        settings:
                            #"{"notificationTimeoutMilliseconds": 8000, "notificationRetryInitialMilliseconds": 100}"#
                    ).status == 200)
                #expect(try await a.client.nativeAuthorize("maria").status == 200)
                // A's lease starts when it claims the notification: after this, before the first arrival.
                let posted = Date()
                let id = try await a.client.json("/__admin/events", #"{"type":"account-delete","user":"maria"}"#)
                    .notificationId()
                let first = try #require(await inbox.waitForArrivals(1).first)
                #expect(first.jti == id)

                // B starts while A's delivery hangs; then A dies without a word.
                let b = try await children.start(state: url)
                #expect(try await b.client.notifications().first?["status"] as? String == "delivering")
                a.kill()
                #expect(await a.waitForExit(seconds: 5) != nil)

                let payload = try #require(await inbox.waitFor(1, seconds: lease + 5).first)
                #expect(Fixture.claims(of: payload)["jti"] as? String == id)
                let arrivals = await inbox.arrivals
                #expect(arrivals.count == 2)
                // Not before the lease ends (counted from before the claim: under load A's attempt
                // has reached the receiver over a second after its claim), and soon after it.
                let afterPosting = arrivals[1].at.timeIntervalSince(posted)
                #expect(afterPosting >= lease - 0.25, "taken over \(afterPosting) s after the event was posted")
                let gap = arrivals[1].at.timeIntervalSince(first.at)
                #expect(gap < lease + 3, "taken over \(gap) s after the first attempt")
                // B records its attempt once the receiver has answered, a moment after the arrival.
                #expect(
                    try await Waiting.until(seconds: 5) {
                        try await b.client.notifications().first?["status"] as? String == "delivered"
                    })
                let record = try #require(try await b.client.notifications().first)
                #expect((record["attempts"] as? [Any])?.count == 1, "only B's attempt is recorded")
                await ServerProcess.stop(b)
            }
        }
    }

    @Test("a reset through one replica cuts short the delivery under way on the other")
    func resetAcrossReplicas() async throws {
        let url = try await TestPostgres.freshDatabase()
        let inbox = NotificationInbox(hangFirst: 1)
        try await inbox.serve { port in
            try await ChildServers.with { children in
                let a = try await children.start(state: url, arguments: ["--log-level", "info"])
                #expect(
                    try await a.client.activateScenario(
                        notifying: "http://127.0.0.1:\(port)/notify",
                        settings: #"{"notificationTimeoutMilliseconds": 20000}"#
                    ).status == 200)
                #expect(try await a.client.nativeAuthorize("maria").status == 200)
                let id = try await a.client.json("/__admin/events", #"{"type":"account-delete","user":"maria"}"#)
                    .notificationId()
                #expect(await inbox.waitForArrivals(1).first?.jti == id)

                let b = try await children.start(state: url)
                #expect(try await b.client.send("POST", "/__admin/reset").status == 200)
                let resetAnswered = Date()
                #expect(try await a.client.notifications().isEmpty)
                #expect(
                    try await Waiting.until(seconds: 5) { a.stderr.contains("notification delivery cut short") },
                    "A's log:\n\(a.stderr)")
                // No pause to let a re-delivery "not happen": a retry of the cut-short delivery would be
                // due one first-retry delay (the settings in force) after the reset. Wait that out, then
                // queue a marker: once it arrived, a retry due before it had its turn, on either replica.
                try await QuietWindow.wait(
                    until: resetAnswered.addingTimeInterval(try await a.client.firstRetryDelay()))
                let marker = try await a.client.queueMarker()
                #expect(await inbox.waitForArrivals(of: marker, seconds: 10), "the marker arrives")
                #expect(await inbox.arrivals.filter { $0.at > resetAnswered && $0.jti != marker }.isEmpty)
                await ServerProcess.stop(a, b)
            }
        }
    }
}
