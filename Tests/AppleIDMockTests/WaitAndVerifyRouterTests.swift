import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// Waiting reads, journal verification, trace ids and `/metrics` over HTTP, as a test suite drives
/// them.
@Suite("Waiting reads, verification, trace ids and metrics")
struct WaitAndVerifyRouterTests {
    /// Signs sam in and exchanges the code; returns the refresh token.
    private func exchange(
        _ client: some TestClientProtocol, secret: String, traceparent: String? = nil
    ) async throws -> String {
        let code = try #require(try await client.signIn("sam")["code"])
        var headers = HTTPFields()
        if let traceparent { headers[HTTPField.Name("traceparent")!] = traceparent }
        let pairs = [
            ("grant_type", "authorization_code"), ("client_id", Fixture.webClient), ("client_secret", secret),
            ("code", code), ("redirect_uri", Fixture.redirect),
        ]
        let answer = try await client.postForm("/auth/token", pairs, headers: headers)
        #expect(answer.status == .ok)
        return try #require(answer.json["refresh_token"] as? String)
    }

    /// Whether `watch` has `count` reads asleep on `topic` (within 10 s, times the patience): the
    /// read a test started is waiting, so what the test does next must wake it.
    private func asleep(_ count: Int, on topic: StoreWatch.Topic, _ watch: StoreWatch) async throws -> Bool {
        try await Waiting.until(seconds: 10, every: .milliseconds(5)) { watch.waiting(topic) == count }
    }

    @Test("a journal read with waitSeconds answers as soon as minCount entries match, or at the deadline")
    func journalWait() async throws {
        let services = try await Fixture.services()
        try await Fixture.application(services).test(.router) { client in
            let secret = try await Fixture.secret()
            let started = ContinuousClock.now
            async let waited = client.execute(
                uri: "/__admin/journal?endpoint=token&minCount=1&waitSeconds=30", method: .get)
            #expect(try await asleep(1, on: .journal, services.state.store.watch))
            _ = try await exchange(client, secret: secret)
            let answer = try await waited
            let took = ContinuousClock.now - started
            #expect(answer.status == .ok)
            #expect(answer.json["reached"] as? Bool == true && answer.json["matched"] as? Int == 1)
            #expect(
                (answer.json["entries"] as? [[String: Any]])?.first?["grantType"] as? String == "authorization_code")
            #expect(took < .seconds(10), "answered after \(took): at its deadline, not woken by the entry")

            let short = try await client.execute(
                uri: "/__admin/journal?endpoint=token&minCount=5&waitSeconds=0.3", method: .get)
            #expect(
                short.status == .ok && short.json["reached"] as? Bool == false && short.json["matched"] as? Int == 1)
            let plain = try await client.execute(uri: "/__admin/journal?endpoint=token", method: .get)
            #expect(plain.json["reached"] == nil)
            let bad = try await client.execute(uri: "/__admin/journal?waitSeconds=61&minCount=0", method: .get)
            #expect(bad.status == .badRequest)
            let reasons = (bad.json["problems"] as? [[String: Any]])?.compactMap { $0["path"] as? String }
            #expect(reasons == ["?waitSeconds", "?minCount"])
        }
    }

    @Test("verify: 200 when the count holds, 422 with near misses when not, sequences, 400 naming the field")
    func verify() async throws {
        let services = try await Fixture.services()
        try await Fixture.application(services).test(.router) { client in
            let secret = try await Fixture.secret()
            let token = try await exchange(client, secret: secret)
            #expect(try await client.refresh(token, secret: secret).status == .ok)

            let held = try await client.postJSON(
                "/__admin/journal/verify",
                #"{"match":{"endpoint":"token","grantType":"authorization_code","user":"sam","outcome":"ok"},"count":{"exactly":1}}"#
            )
            #expect(held.status == .ok, "\(String(buffer: held.body))")
            #expect(held.json["verified"] as? Bool == true && held.json["count"] as? Int == 1)

            let failed = try await client.postJSON(
                "/__admin/journal/verify",
                #"{"match":{"endpoint":"token","grantType":"refresh_token","clientId":"com.example.app"},"count":{"atLeast":1}}"#
            )
            #expect(failed.status == .unprocessableContent)
            #expect(failed.json["error"] as? String == "verification_failed" && failed.json["count"] as? Int == 0)
            let misses = try #require(failed.json["nearMisses"] as? [[String: Any]])
            let closest = try #require(misses.first)
            #expect((closest["entry"] as? [String: Any])?["grantType"] as? String == "refresh_token")
            let differences = try #require(closest["differences"] as? [[String: Any]])
            #expect(differences.map { $0["field"] as? String } == ["clientId"])
            #expect(differences.first?["actual"] as? String == Fixture.webClient)
            #expect(misses.count <= 5)

            let sequence = try await client.postJSON(
                "/__admin/journal/verify",
                #"{"sequence":[{"endpoint":"authorize"},{"grantType":"authorization_code"},{"grantType":"refresh_token"}]}"#
            )
            #expect(sequence.status == .ok, "\(String(buffer: sequence.body))")
            let reversed = try await client.postJSON(
                "/__admin/journal/verify",
                #"{"sequence":[{"grantType":"refresh_token"},{"grantType":"authorization_code"}]}"#)
            #expect(reversed.status == .unprocessableContent && reversed.json["failedStep"] as? Int == 1)

            // Waiting: the verification holds once the call comes, woken by its entry.
            let started = ContinuousClock.now
            async let waited = client.postJSON(
                "/__admin/journal/verify",
                #"{"match":{"endpoint":"revoke"},"count":{"exactly":1},"waitSeconds":30}"#)
            #expect(try await asleep(1, on: .journal, services.state.store.watch))
            let revoked = try await client.postForm(
                "/auth/revoke",
                [("client_id", Fixture.webClient), ("client_secret", secret), ("token", token)])
            #expect(revoked.status == .ok)
            #expect(try await waited.status == .ok)
            let took = ContinuousClock.now - started
            #expect(took < .seconds(10), "verified after \(took): at its deadline, not woken by the entry")

            for (body, path) in [
                (#"{"match":{"endpoint":"token","colour":"red"}}"#, "$.match.colour"),
                (#"{"match":{"endpoint":"token"},"count":{"atLeast":2,"atMost":1}}"#, "$.count"),
                (#"{"match":{"endpoint":"token"},"waitSeconds":-1}"#, "$.waitSeconds"),
            ] {
                let bad = try await client.postJSON("/__admin/journal/verify", body)
                #expect(bad.status == .badRequest)
                #expect((bad.json["problems"] as? [[String: Any]])?.first?["path"] as? String == path, "\(body)")
            }
        }
    }

    @Test("a mailbox read waiting for a refused message is woken by the relay's refusal, long before its deadline")
    func mailWaitWokenByARefusal() async throws {
        let services = try await Fixture.services()
        let relay = try await MailDeskTests.samHides(services)
        try await Fixture.application(services).test(.router) { client in
            let started = ContinuousClock.now
            async let waited = client.execute(
                uri: "/__admin/mail?outcome=unauthorized_sender&minCount=1&waitSeconds=30", method: .get)
            #expect(try await asleep(1, on: .mail, services.state.store.watch))
            // The relay refuses a message to sam's address from a sender his app never registered.
            let refusal = await MailDesk(services: services).checkRecipient(
                relay, sender: "x@nowhere.example", overTLS: false)
            #expect(refusal?.code == 550)
            let answer = try await waited
            let took = ContinuousClock.now - started
            #expect(answer.status == .ok)
            #expect(answer.json["reached"] as? Bool == true && answer.json["matched"] as? Int == 1)
            let entry = (answer.json["entries"] as? [[String: Any]])?.first
            #expect(entry?["outcome"] as? String == "unauthorized_sender")
            #expect(entry?["envelopeSender"] as? String == "x@nowhere.example")
            #expect(took < .seconds(10), "answered after \(took): at its deadline, not woken by the refusal")
        }
    }

    @Test("state=settled waits until no notification is pending or retrying; other states filter")
    func settled() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            #expect(
                try await client.postJSON("/__admin/settings", #"{"notificationMaxAttempts":1}"#, method: .patch)
                    .status == .ok)
            #expect(
                try await client.postJSON("/__admin/faults", #"{"endpoint":"notifications","drop":true}"#).status
                    == .created)
            _ = try await client.signIn("sam")
            #expect(
                try await client.postJSON("/__admin/events", #"{"type":"account-delete","user":"sam"}"#).status == .ok)
            let answer = try await client.execute(
                uri: "/__admin/notifications?state=settled&waitSeconds=30", method: .get)
            #expect(answer.status == .ok)
            #expect(answer.json["settled"] as? Bool == true && answer.json["reached"] as? Bool == true)
            let records = try #require(answer.json["notifications"] as? [[String: Any]])
            #expect(records.map { $0["status"] as? String } == ["failed"])
            let failed = try await client.execute(uri: "/__admin/notifications?state=failed&minCount=1", method: .get)
            #expect((failed.json["notifications"] as? [Any])?.count == 1 && failed.json["reached"] as? Bool == true)
            let pending = try await client.execute(uri: "/__admin/notifications?state=pending", method: .get)
            #expect((pending.json["notifications"] as? [Any])?.isEmpty == true)
            #expect(
                try await client.execute(uri: "/__admin/notifications?state=gone", method: .get).status == .badRequest)
            #expect(
                try await client.execute(uri: "/__admin/notifications?state=settled&minCount=2", method: .get).status
                    == .badRequest)
        }
    }

    @Test("a traceparent on a call is kept in its journal entry and can be verified by trace id")
    func traceparent() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
            _ = try await exchange(client, secret: try await Fixture.secret(), traceparent: traceparent)
            let entries = try #require(
                try await client.execute(uri: "/__admin/journal?endpoint=token", method: .get).json["entries"]
                    as? [[String: Any]])
            #expect(entries.first?["traceparent"] as? String == traceparent)
            let verified = try await client.postJSON(
                "/__admin/journal/verify", #"{"match":{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736"}}"#)
            #expect(verified.status == .ok)
        }
    }

    @Test("/metrics counts Apple calls by endpoint, grant type and outcome, issuance and live grants")
    func metrics() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let secret = try await Fixture.secret()
            let token = try await exchange(client, secret: secret)
            #expect(try await client.refresh(token, secret: "wrong").status == .badRequest)
            let page = try await client.execute(uri: "/metrics", method: .get)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = String(buffer: page.body)
            let lines = Set(text.split(separator: "\n").map(String.init))
            #expect(
                lines.contains(
                    #"appleidmock_apple_calls_total{endpoint="token",grant_type="authorization_code",outcome="ok"} 1"#))
            #expect(
                lines.contains(
                    #"appleidmock_apple_calls_total{endpoint="token",grant_type="refresh_token",outcome="invalid_client"} 1"#
                ))
            #expect(lines.contains(#"appleidmock_issued_total{kind="code"} 1"#))
            #expect(lines.contains(#"appleidmock_issued_total{kind="refresh_token"} 1"#))
            #expect(lines.contains(#"appleidmock_live_grants{kind="refresh_token"} 1.0"#))
            #expect(
                lines.contains(
                    #"appleidmock_apple_call_duration_seconds_count{endpoint="token",grant_type="authorization_code"} 1"#
                ))
            #expect(text.contains("appleidmock_store_step_duration_seconds_bucket{step=\"session\""))
        }
    }
}
