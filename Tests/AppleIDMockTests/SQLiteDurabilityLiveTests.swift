import Foundation
import SQLiteNIO
import Synchronization
import Testing

/// `--state sqlite:PATH` across real processes: what one server did survives `kill -9` into the next
/// server on the same file; a second server on a file in use, and a file of an unknown schema
/// version, are refused with one line.
@Suite("SQLite state across processes", .timeLimit(.minutes(3)), .tags(.live))
struct SQLiteDurabilityLiveTests {
    /// Quick retries, many attempts: a notification stays pending while its receiver is down.
    static let settings = """
        {"notificationRetryInitialMilliseconds": 100, "notificationRetryMaxMilliseconds": 300,
         "notificationMaxAttempts": 1000, "notificationTimeoutMilliseconds": 1000}
        """

    @Test("grants, consent, settings, clock, uploads, transfers and a pending notification survive kill -9")
    func survivesKill() async throws {
        // Valid for a day: the mock's clock moves an hour ahead.
        let secret = try await Fixture.secret(now: Date(), lifetime: 86_400)
        let defaultJSON = try String(contentsOfFile: Fixture.scenariosDirectory + "/default.json", encoding: .utf8)
        // The receiver is down (503) until after the restart.
        let inbox = NotificationInbox(failFirst: .max)
        try await inbox.serve { receiverPort in
            try await ChildServers.with { children in
                let path = children.file("state.sqlite")
                let first = try await children.start(state: "sqlite:\(path)")
                let a = first.client
                let url = "http://127.0.0.1:\(receiverPort)/notify"
                #expect(try await a.activateScenario(notifying: url, settings: Self.settings).status == 200)
                #expect(try await a.send("POST", "/__admin/scenarios?name=kept", body: defaultJSON).status == 200)
                let fields = try await a.signIn("sam")
                #expect(fields["user"] != nil)
                let tokens = try await a.exchange(code: try #require(fields["code"]), secret: secret)
                let refresh = try #require(tokens.json["refresh_token"] as? String, "\(tokens.text)")
                #expect(try await a.nativeAuthorize("maria").status == 200)
                #expect(
                    try await a.json("/__admin/settings", #"{"idTokenLifetimeSeconds": 600}"#, method: "PATCH").status
                        == 200)
                #expect(try await a.json("/__admin/clock", #"{"advanceSeconds": 3600}"#).status == 200)
                #expect(
                    try await a.json("/__admin/transfers", #"{"appGroup":"other","toTeam":"DEF123GHIJ"}"#).status == 200
                )
                let event = try await a.json("/__admin/events", #"{"type":"account-delete","user":"maria"}"#)
                let id = try event.notificationId()
                // Killed once an attempt has failed (the receiver is down).
                #expect(
                    try await Waiting.until(seconds: 5) {
                        let record = try await a.notifications().first { $0["id"] as? String == id }
                        return (record?["attempts"] as? [Any])?.isEmpty == false
                    })

                first.kill()
                #expect(await first.waitForExit(seconds: 5) != nil)
                #expect(first.ending == .signalled(SIGKILL))

                let second = try await children.start(state: "sqlite:\(path)")
                let b = second.client
                let refreshed = try await b.refresh(refresh, secret: secret)
                #expect(refreshed.status == 200, "\(refreshed.text)")
                let idToken = Fixture.claims(of: refreshed.json["id_token"] as? String ?? "")
                #expect((idToken["exp"] as? Int ?? 0) - (idToken["iat"] as? Int ?? 0) == 600)
                let again = try await b.signIn("sam")
                #expect(again["code"] != nil && again["user"] == nil, "not a first authorization: \(again)")
                #expect(try await b.nativeAuthorize("maria").status == 409)  // her account stays deleted
                let settings = try await b.get("/__admin/settings").json
                #expect(settings["idTokenLifetimeSeconds"] as? Int == 600)
                #expect(settings["notificationMaxAttempts"] as? Int == 1000)
                #expect(try await b.get("/__admin/clock").json["offsetSeconds"] as? Double == 3600)
                let scenarios = try await b.get("/__admin/scenarios").json
                #expect(scenarios["active"] as? String == "live")
                #expect((scenarios["available"] as? [String])?.contains("kept") == true)
                let transfers = try await b.get("/__admin/transfers").json["transfers"] as? [[String: Any]] ?? []
                #expect(
                    transfers.map { "\($0["appGroupId"] ?? "") → \($0["toTeam"] ?? "")" } == ["other → DEF123GHIJ"])
                let pending = try await b.notifications().first { $0["id"] as? String == id }
                #expect(["pending", "delivering"].contains(pending?["status"] as? String ?? "missing"))
                #expect((pending?["attempts"] as? [Any])?.isEmpty == false)

                // The receiver comes back: the notification from before the kill reaches it, once.
                await inbox.recover()
                let payload = try #require(await inbox.waitFor(1, seconds: 10).first)
                #expect(Fixture.claims(of: payload)["jti"] as? String == id)
                let delivered = try await Waiting.until(seconds: 5) {
                    try await b.notifications().first { $0["id"] as? String == id }?["status"] as? String
                        == "delivered"
                }
                #expect(delivered)
                #expect(await inbox.payloads.count == 1)
                await ServerProcess.stop(second)
            }
        }
    }

    /// The refresh tokens the server answered with, from any number of tasks.
    final class Answered: Sendable {
        let tokens = Mutex<[String]>([])
        var count: Int { tokens.withLock { $0.count } }
    }

    @Test("every token answered under concurrent load before kill -9 is there after it (steps share commits)")
    func answeredSurviveKill() async throws {
        let secret = try await Fixture.secret(now: Date(), lifetime: 86_400)
        try await ChildServers.with { children in
            let path = children.file("state.sqlite")
            let first = try await children.start(state: "sqlite:\(path)")
            let a = first.client
            let answered = Answered()
            try await withThrowingTaskGroup(of: Void.self) { group in
                // Sign-ins and code exchanges from 8 clients at once, until the server is gone.
                for _ in 0..<8 {
                    group.addTask {
                        while true {
                            guard let code = try? await a.signIn("sam")["code"],
                                let tokens = try? await a.exchange(code: code, secret: secret), tokens.status == 200,
                                let refresh = tokens.json["refresh_token"] as? String
                            else { return }
                            answered.tokens.withLock { $0.append(refresh) }
                        }
                    }
                }
                group.addTask {
                    _ = try await Waiting.until(seconds: 30) { answered.count >= 60 }
                    first.kill()
                }
                try await group.waitForAll()
            }
            // The clients stop as soon as the server is gone, which can be before it is reaped:
            // its ending is read once it has exited (Foundation traps on a running process's).
            #expect(await first.waitForExit(seconds: 5) != nil)
            #expect(first.ending == .signalled(SIGKILL))
            let tokens = answered.tokens.withLock { $0 }
            #expect(tokens.count >= 60)

            let second = try await children.start(state: "sqlite:\(path)")
            var refused: [String] = []
            for token in tokens {
                let refreshed = try await second.client.refresh(token, secret: secret)
                if refreshed.status != 200 { refused.append("\(refreshed.status) \(refreshed.text)") }
            }
            #expect(refused.isEmpty, "\(refused.count) of \(tokens.count) answered tokens lost: \(refused.prefix(3))")
            await ServerProcess.stop(second)
        }
    }

    @Test("a second server on a file in use is refused with one line naming the file")
    func fileInUse() async throws {
        try await ChildServers.with { children in
            let path = children.file("state.sqlite")
            let first = try await children.start(state: "sqlite:\(path)")
            let second = try await children.run(ChildServers.serveArguments(state: "sqlite:\(path)"))
            #expect(second.ending != .exited(0))
            #expect(second.stderrLines.count == 1, "stderr:\n\(second.stderr)")
            #expect(second.stderr.contains("sqlite:\(path)") && second.stderr.contains("in use"), "\(second.stderr)")
            #expect(try await first.client.signIn("sam")["code"] != nil, "the first server still writes its file")
            await ServerProcess.stop(first)
        }
    }

    @Test("a file of an unknown schema version is refused with one line naming both versions")
    func unknownSchemaVersion() async throws {
        try await ChildServers.with { children in
            let path = children.file("state.sqlite")
            let server = try await children.start(state: "sqlite:\(path)")
            server.terminate()
            #expect(await server.waitForExit(seconds: 5) != nil)
            let connection = try await SQLiteConnection.open(storage: .file(path: path))
            _ = try await connection.query("UPDATE apple_id_mock_meta SET value = '99' WHERE name = 'schema_version'")
            try await connection.close()
            let refused = try await children.run(ChildServers.serveArguments(state: "sqlite:\(path)"))
            #expect(refused.ending != .exited(0))
            #expect(refused.stderrLines.count == 1, "stderr:\n\(refused.stderr)")
            #expect(refused.stderr.contains("sqlite:\(path)"), "\(refused.stderr)")
            #expect(refused.stderr.contains("schema version 99") && refused.stderr.contains("reads version 2"))
        }
    }
}
