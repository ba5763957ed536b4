import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import JWTKit
import Logging
import NIOCore
import Testing

@testable import AppleIDMock

/// The control plane against a running server: dropped connections, notifications made to order
/// and the conformance table, faults on outgoing notifications, the wire-level hardening, the
/// start-up warning, debug-log redaction, and the offline `mint` command.
@Suite("Control plane, live", .tags(.live))
struct ControlPlaneLiveTests {
    @Test("a dropped connection: the client gets no answer at all, once; the journal says dropped")
    func drop() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let live = LiveClient(baseURL: "http://127.0.0.1:\(port)")
            _ = try await live.json("/__admin/faults", #"{"endpoint":"token","drop":true,"times":1}"#)
            await #expect(throws: (any Error).self) {
                _ = try await live.postForm("/auth/token", [("grant_type", "refresh_token")])
            }
            #expect(try await live.postForm("/auth/token", [("grant_type", "refresh_token")]).status == 400)
            let entries = try #require(
                try await live.get("/__admin/journal?endpoint=token").json["entries"] as? [[String: Any]])
            #expect(entries.map { $0["outcome"] as? String } == ["invalid_request", "dropped"])
        }
    }

    /// A backend's notification endpoint that checks what it receives as it should: signature with
    /// the published keys, `iss`, `aud`, `exp`, and `events` as a string.
    private static func strictReceiver(jwks: @escaping @Sendable () async throws -> String) -> some ApplicationProtocol
    {
        let router = Router()
        router.post("/notify") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
                let jws = object["payload"] as? String
            else { return Response(status: .badRequest) }
            do {
                let (payload, _) = try await LifecycleLiveTests.verify(jws, jwks: try await jwks())
                guard payload.aud.value == [Fixture.appClient] else { return Response(status: .unauthorized) }
                return Response(status: .ok)
            } catch {
                return Response(status: .unauthorized)
            }
        }
        var logger = Logger(label: "strict-receiver")
        logger.logLevel = .critical
        return Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
    }

    @Test("conformance: a receiver that accepts everything has 7 findings; one that verifies passes")
    func conformance() async throws {
        let app = try await buildApplication(configuration: Fixture.configuration())
        try await app.test(.live) { mock in
            let live = LiveClient(baseURL: "http://127.0.0.1:\(try #require(mock.port))")
            let inbox = NotificationInbox()
            try await inbox.serve { port in
                let table = try await live.json(
                    "/__admin/notifications/conformance",
                    #"{"appGroupId":"example","user":"sam","url":"http://127.0.0.1:\#(port)/notify"}"#)
                #expect(table.status == 200, "\(table.text)")
                let rows = try #require(table.json["results"] as? [[String: Any]])
                #expect(rows.count == 8)
                #expect(rows.last?["defect"] as? String == "none" && rows.last?["verdict"] as? String == "ok")
                #expect(rows.dropLast().allSatisfy { $0["verdict"] as? String == "finding" })
                #expect(table.json["findings"] as? Int == 7 && table.json["passed"] as? Bool == false)
            }
            try await Self.strictReceiver(jwks: { try await live.get("/auth/keys").text }).test(.live) { receiver in
                let url = "http://127.0.0.1:\(try #require(receiver.port))/notify"
                let table = try await live.json(
                    "/__admin/notifications/conformance", #"{"appGroupId":"example","user":"sam","url":"\#(url)"}"#)
                let rows = try #require(table.json["results"] as? [[String: Any]])
                #expect(rows.allSatisfy { $0["verdict"] as? String == "ok" }, "\(table.text)")
                #expect(table.json["passed"] as? Bool == true && table.json["findings"] as? Int == 0)
                let one = try await live.json(
                    "/__admin/mint/notification",
                    #"{"appGroupId":"example","user":"sam","url":"\#(url)","defect":"events-object","type":"email-disabled"}"#
                )
                #expect(one.json["status"] as? Int == 401 && one.json["verdict"] as? String == "ok")
                let claims = try #require((one.json["notification"] as? [String: Any])?["claims"] as? [String: Any])
                #expect(claims["events"] is [String: Any])
            }
            let journal = try #require(
                try await live.get("/__admin/journal?endpoint=notifications").json["entries"] as? [[String: Any]])
            #expect(journal.count == 17)
            let bad = try await live.json("/__admin/mint/notification", #"{"appGroupId":"example","url":"ftp://x"}"#)
            #expect(bad.status == 400)
            // These trapped in the HTTP client and took the server down.
            for url in ["http://127.0.0.1:99999/n", "http://127.0.0.1:65536/n", "http://localhost:0/n"] {
                let outOfRange = try await live.json(
                    "/__admin/mint/notification", #"{"appGroupId":"example","url":"\#(url)"}"#)
                #expect(outOfRange.status == 400 && outOfRange.text.contains("outside 1...65535"), "\(outOfRange.text)")
                let table = try await live.json(
                    "/__admin/notifications/conformance", #"{"appGroupId":"example","url":"\#(url)"}"#)
                #expect(table.status == 400, "\(table.text)")
            }
            #expect(try await live.get("/health").status == 200)
            let noURL = try await live.json("/__admin/mint/notification", #"{"appGroupId":"other"}"#)
            #expect(noURL.status == 409)
        }
    }

    @Test("a fault on outgoing notifications drops one attempt; the retry delivers it; both are journaled")
    func notificationFault() async throws {
        let inbox = NotificationInbox()
        try await inbox.serve { port in
            let app = try await buildApplication(configuration: Fixture.configuration())
            try await app.test(.live) { mock in
                let live = LiveClient(baseURL: "http://127.0.0.1:\(try #require(mock.port))")
                // A long attempt timeout: on a loaded machine the receiver (in this process) may take
                // seconds to answer, which the default 5 s turned into a third, timed-out attempt.
                _ = try await live.activateScenario(
                    notifying: "http://127.0.0.1:\(port)/notify",
                    settings: """
                        {"notificationRetryInitialMilliseconds": 20, "notificationRetryMaxMilliseconds": 100,
                         "notificationTimeoutMilliseconds": 60000}
                        """)
                _ = try await live.json(
                    "/__admin/faults",
                    #"{"endpoint":"notifications","clientId":"com.example.app","drop":true,"times":1}"#)
                _ = try await live.json(
                    "/__admin/native/authorize", #"{"clientId":"com.example.app","user":"sam","scopes":["email"]}"#)
                _ = try await live.json(
                    "/__admin/events", #"{"type":"consent-revoked","user":"sam","appGroup":"example"}"#)
                #expect(await inbox.waitFor(1).count == 1)
                // The receiver answered; the mock records the outcome right after.
                _ = try await Waiting.until(seconds: 5) {
                    (try await live.notifications().first?["status"] as? String) == "delivered"
                }
                let record = try #require(try await live.notifications().first)
                let attempts = try #require(record["attempts"] as? [[String: Any]])
                #expect(attempts.count == 2)
                #expect(
                    (attempts.first?["outcome"] as? String)?.hasPrefix("not sent: dropped by fault rule f1") == true)
                let journal = try #require(
                    try await live.get("/__admin/journal?endpoint=notifications&user=sam").json["entries"]
                        as? [[String: Any]])
                #expect(journal.map { $0["outcome"] as? String } == ["ok", "dropped"])
                #expect(journal.last?["fault"] as? String == "f1")
                #expect(journal.first?["notificationType"] as? String == "consent-revoked")
            }
        }
    }

    @Test("Expect: 100-continue is answered before the body; idle connections and slow headers are closed")
    func wire() async throws {
        try await ChildServers.with { children in
            let server = try await children.start(state: "memory", arguments: ["--idle-timeout", "1"])
            let body = #"{"advanceSeconds":1}"#
            let waiting = try RawConnection(port: server.port)
            waiting.send(
                "POST /__admin/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n"
            )
            #expect(waiting.read(until: "\r\n\r\n").text.hasPrefix("HTTP/1.1 100 Continue"))
            waiting.send(body)
            #expect(waiting.read(until: "}").text.contains("HTTP/1.1 200 OK"))
            // Headers that trickle in, a byte every 0.3 s, never complete a request: closed after the timeout.
            let slow = try RawConnection(port: server.port, readTimeout: 0.3)
            let started = Date()
            var closed = false
            for byte in "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: yes\r\n" {
                slow.send(String(byte))
                if slow.read().closed {
                    closed = true
                    break
                }
            }
            #expect(closed && Date().timeIntervalSince(started) < 4.5)
            let idle = try RawConnection(port: server.port)
            #expect(idle.read().closed)
            // DNS rebinding: a page on another name reaches 127.0.0.1 and sends its own Host.
            func status(_ path: String, host: String, origin: String? = nil) -> Substring? {
                let connection = try? RawConnection(port: server.port)
                let originLine = origin.map { "Origin: \($0)\r\n" } ?? ""
                connection?.send("GET \(path) HTTP/1.1\r\nHost: \(host)\r\n\(originLine)Connection: close\r\n\r\n")
                return connection?.read().text.split(separator: " ").dropFirst().first
            }
            #expect(status("/__admin/scenario", host: "rebind.evil.example:\(server.port)") == "403")
            #expect(status("/__admin/scenario", host: "127.rebind.example:\(server.port)") == "403")
            #expect(status("//__admin/scenario", host: "rebind.evil.example:\(server.port)") == "403")
            #expect(status("/auth/keys", host: "rebind.evil.example:\(server.port)") == "200")
            #expect(status("/__admin/", host: "rebind.evil.example:\(server.port)") == "403", "the dashboard too")
            #expect(
                status("/__admin/scenario", host: "localhost:\(server.port)", origin: "http://localhost:\(server.port)")
                    == "200")
            #expect(status("/__admin/scenario", host: "[::1]:\(server.port)") == "200")
        }
    }

    @Test("start-up warns on a public interface without a token; debug logs show secrets as fingerprints")
    func logs() async throws {
        try await ChildServers.with { children in
            let open = try await children.start(
                state: "memory", arguments: ["--host", "0.0.0.0", "--log-level", "debug"])
            #expect(open.stderr.contains("without an admin token"))
            let query = "client_id=com.example.web&code=c0de-SECRET-1&client_secret=eyJ-SECRET-2&response_type=code"
            _ = try await open.client.get("/auth/authorize?" + query)
            _ = try await open.client.postForm(
                "/auth/token", [("grant_type", "authorization_code"), ("code", "c0de-SECRET-3"), ("client_id", "x")])
            // No pause for the log to "not show" a secret: each request's debug line is written before
            // its answer, so wait until the token call's line reached us through the pipe, then look.
            #expect(
                try await Waiting.until(seconds: 10) {
                    open.stderr.contains(Fingerprint.of("c0de-SECRET-1")) && open.stderr.contains("/auth/token")
                }, "\(open.stderr)")
            #expect(!open.stderr.contains("SECRET"))
            #expect(open.stderr.contains("code=sha256:\(Fingerprint.of("c0de-SECRET-1"))"))
            let guarded = try await children.start(
                state: "memory", arguments: ["--host", "0.0.0.0", "--admin-token", "t0ken"])
            #expect(!guarded.stderr.contains("without an admin token") && !guarded.stderr.contains("t0ken"))
            #expect(try await guarded.client.get("/__admin/scenario").status == 401)
            #expect(try await guarded.client.get("//__admin/scenario").status == 401)
        }
    }

    @Test("apple-id-mock mint id-token works offline: valid, with a defect, many at once")
    func mintCommand() async throws {
        try await ChildServers.with { children in
            let base = [
                "mint", "id-token", "--user", "sam", "--client-id", Fixture.webClient, "--scenarios-dir",
                Fixture.scenariosDirectory, "--keys-dir", Fixture.keysDirectory,
            ]
            let valid = try await children.run(base + ["--nonce", "n-9", "--set", "email_verified=false"])
            let token = valid.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let claims = Fixture.claims(of: token)
            #expect(claims["nonce"] as? String == "n-9" && claims["email_verified"] as? Bool == false)
            #expect(Fixture.header(of: token)["kid"] as? String == "Mk7pQ2xR9a")
            let expired = try await children.run(base + ["--defect", "expired", "--json"])
            let minted = try #require(
                try JSONSerialization.jsonObject(with: Data(expired.stdout.utf8)) as? [String: Any])
            #expect(minted["expected"] as? String == "reject" && minted["defect"] as? String == "expired")
            let many = try await children.run(base + ["--count", "20"])
            #expect(many.stdout.split(separator: "\n").count == 20)
            #expect(many.stderr.contains("tokens/s"))
            let wrong = try await children.run(base + ["--defect", "sideways"])
            #expect(wrong.ending != .exited(0))
        }
    }
}
