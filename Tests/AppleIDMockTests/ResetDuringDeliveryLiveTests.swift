import Foundation
import Testing

/// A reset while notifications are being delivered, against a real server process: the outbox is
/// emptied and nothing produced before the reset reaches the receiver after the reset answered,
/// whether the delivery was waiting to retry or hanging on the receiver.
@Suite("Reset during a delivery", .timeLimit(.minutes(3)), .tags(.live))
struct ResetDuringDeliveryLiveTests {
    static let accountDelete = #"{"type":"account-delete","user":"maria"}"#

    @Test("retries of a failing delivery stop when a reset (or a scenario switch) answers")
    func resetStopsRetries() async throws {
        let inbox = NotificationInbox(failFirst: .max)
        try await inbox.serve { port in
            try await ChildServers.with { children in
                let server = try await children.start(state: "memory")
                let client = server.client
                let settings = """
                    {"notificationRetryInitialMilliseconds": 5000, "notificationRetryMaxMilliseconds": 5000,
                     "notificationMaxAttempts": 100, "notificationTimeoutMilliseconds": 2000}
                    """
                #expect(
                    try await client.activateScenario(notifying: "http://127.0.0.1:\(port)/notify", settings: settings)
                        .status == 200)
                // Resets at several points of the 5 s backoff (well before the next attempt, which a
                // reset cannot stop once it is on the wire), and a switch (to the same scenario), which
                // cuts deliveries short the same way.
                var resets: [(jti: String, at: Date)] = []
                for (pause, switches) in [(0, false), (100, false), (150, true)] {
                    #expect(try await client.nativeAuthorize("maria").status == 200)
                    let event = try await client.json("/__admin/events", Self.accountDelete)
                    let jti = try event.notificationId()
                    #expect(
                        try await Waiting.until(seconds: 5) { await inbox.arrivals.contains { $0.jti == jti } },
                        "the first attempt arrives")
                    try await Task.sleep(for: .milliseconds(pause))
                    let reset =
                        switches
                        ? try await client.json("/__admin/scenario", #"{"name":"live"}"#, method: "PUT")
                        : try await client.send("POST", "/__admin/reset")
                    #expect(reset.status == 200, "\(reset.text)")
                    let answered = Date()
                    // A reset answered within 4 s of the failed attempt came well before the retry (due
                    // 5 s after it; the backoff is long so that a loaded machine still gives rounds to
                    // judge). One delayed past that proves nothing: the retry may already have been on
                    // the wire.
                    let failed = await inbox.arrivals.first { $0.jti == jti }?.at ?? answered
                    if answered.timeIntervalSince(failed) < 4 { resets.append((jti, answered)) }
                    #expect(try await client.notifications().isEmpty)
                }
                if resets.isEmpty {
                    // Inconclusive, not failed: a machine this loaded gives no round to judge.
                    withKnownIssue("every reset came over 4 s after the attempt it was to stop") {
                        Issue.record("no round could be judged")
                    }
                }
                // No pause to let retries "not happen": a marker queued now fails like the others and
                // is retried on the same backoff (the settings in force), so its first retry is due
                // after any retry of a notification from before a reset would have been. Once the
                // marker's second retry arrived, each of those had its turn and one backoff more.
                let backoff = try await client.firstRetryDelay()
                let marker = try await client.queueMarker()
                let timeout = Double(try await client.setting("notificationTimeoutMilliseconds")) / 1000
                #expect(
                    await inbox.waitForArrivals(of: marker, count: 3, seconds: 3 * (2 * backoff + timeout) + 10),
                    "the marker's first attempt and two retries arrive")
                let arrivals = await inbox.arrivals
                for reset in resets {
                    let late = arrivals.filter { $0.jti == reset.jti && $0.at > reset.at }
                    #expect(late.isEmpty, "\(late.count) attempt(s) of \(reset.jti) after the reset answered")
                }
                // Nothing from before the resets came back into the outbox: only the marker is there.
                #expect(try await client.notifications().map { $0["id"] as? String } == [marker])
                server.terminate()
                #expect(await server.waitForExit(seconds: 5) != nil)
            }
        }
    }

    @Test("a reset cuts a hanging delivery short; the next notification goes out at once")
    func resetCutsHangingDelivery() async throws {
        let inbox = NotificationInbox(hangFirst: 1)
        try await inbox.serve { port in
            try await ChildServers.with { children in
                let server = try await children.start(state: "memory", arguments: ["--log-level", "info"])
                let client = server.client
                let settings = """
                    {"notificationRetryInitialMilliseconds": 100, "notificationRetryMaxMilliseconds": 300,
                     "notificationTimeoutMilliseconds": 20000}
                    """
                #expect(
                    try await client.activateScenario(notifying: "http://127.0.0.1:\(port)/notify", settings: settings)
                        .status == 200)
                #expect(try await client.nativeAuthorize("maria").status == 200)
                let first = try await client.json("/__admin/events", Self.accountDelete)
                let hung = try first.notificationId()
                #expect(await inbox.waitForArrivals(1).first?.jti == hung)
                #expect(try await client.notifications().first?["status"] as? String == "delivering")

                #expect(try await client.send("POST", "/__admin/reset").status == 200)
                let resetAnswered = Date()
                #expect(try await client.notifications().isEmpty)
                #expect(
                    try await Waiting.until(seconds: 5) {
                        server.stderr.contains("notification delivery cut short")
                    }, "the server log says the delivery was cut short:\n\(server.stderr)")

                #expect(try await client.nativeAuthorize("maria").status == 200)
                let second = try await client.json("/__admin/events", Self.accountDelete)
                let next = try second.notificationId()
                // "At once": well before the hung delivery's 20 s timeout would have freed the way, with
                // room for a loaded machine (the wait returns as soon as it arrives).
                let payload = try #require(await inbox.waitFor(1, seconds: 15).first)
                #expect(Fixture.claims(of: payload)["jti"] as? String == next)
                // The outbox records the delivery once the receiver answered: wait for that.
                var records: [[String: Any]] = []
                _ = try await Waiting.until(seconds: 5) {
                    records = try await client.notifications()
                    return records.first?["status"] as? String == "delivered"
                }
                #expect(records.map { $0["id"] as? String } == [next])
                #expect(records.first?["status"] as? String == "delivered")
                // No pause to let a re-delivery "not happen": a retry of the cut-short delivery would be
                // due one first-retry delay (the settings in force) after the reset. Wait that out, then
                // queue a marker: once it arrived, a retry due before it had its turn.
                try await QuietWindow.wait(until: resetAnswered.addingTimeInterval(try await client.firstRetryDelay()))
                let marker = try await client.queueMarker()
                #expect(await inbox.waitForArrivals(of: marker, seconds: 10), "the marker arrives")
                let late = await inbox.arrivals.filter { $0.jti == hung && $0.at > resetAnswered }
                #expect(late.isEmpty, "the notification from before the reset arrived again")
                server.terminate()
                #expect(await server.waitForExit(seconds: 5) != nil)
            }
        }
    }
}
