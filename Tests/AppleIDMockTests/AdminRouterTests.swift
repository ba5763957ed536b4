import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// The control plane: scenario view and switching, settings, clock, consents, reset.
@Suite("Control plane: scenarios, settings, the clock, reset")
struct AdminRouterTests {
    @Test("the scenario view shows each user's derived sub and relay address per team")
    func scenarioView() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let view = try await client.execute(uri: "/__admin/scenario", method: .get).json
            #expect(view["name"] as? String == "default")
            let users = try #require(view["users"] as? [[String: Any]])
            let sam = try #require(users.first { $0["key"] as? String == "sam" })
            let identities = try #require(sam["identities"] as? [[String: String]])
            let mine = try #require(identities.first { $0["teamId"] == Fixture.teamId })
            #expect(mine["sub"] == IdentifierDerivation.subject(userKey: "sam", teamId: Fixture.teamId))
            #expect(mine["relayEmail"] == IdentifierDerivation.relayEmail(userKey: "sam", teamId: Fixture.teamId))
            #expect(view["signingKeyId"] as? String != nil)
        }
    }

    @Test("the clock can be read, advanced, set and reset")
    func clock() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let start = Int(Fixture.start.timeIntervalSince1970)
        try await app.test(.router) { client in
            #expect(try await client.execute(uri: "/__admin/clock", method: .get).json["now"] as? Int == start)
            #expect(
                try await client.postJSON("/__admin/clock", #"{"advanceSeconds": 301}"#).json["now"] as? Int == start
                    + 301)
            #expect(
                try await client.postJSON("/__admin/clock", #"{"now": "2030-01-01T00:00:00Z"}"#).json["now"] as? Int
                    == 1_893_456_000)
            #expect(try await client.postJSON("/__admin/clock", #"{"reset": true}"#).json["now"] as? Int == start)
            let bad = try await client.postJSON("/__admin/clock", #"{"advanceSeconds": "soon"}"#)
            #expect(bad.status == .badRequest)
            #expect((bad.json["problems"] as? [[String: String]])?.first?["path"] == "$.advanceSeconds")
            #expect(try await client.postJSON("/__admin/clock", "not json").status == .badRequest)
            for absurd in [
                #"{"now": 1e20}"#, #"{"now": -1}"#, #"{"advanceSeconds": 300000000000}"#, #"{"reset": false}"#,
            ] {
                #expect(try await client.postJSON("/__admin/clock", absurd).status == .badRequest, "\(absurd)")
            }
            #expect(try await client.execute(uri: "/__admin/clock", method: .get).json["now"] as? Int == start)
        }
    }

    @Test("a scenario can be uploaded, switched to, and switching clears consents")
    func switchScenario() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let scenario = try String(contentsOfFile: Fixture.scenariosDirectory + "/default.json", encoding: .utf8)
            .replacingOccurrences(of: "\"realUserStatus\": 2", with: "\"realUserStatus\": 1")
        try await app.test(.router) { client in
            _ = try await client.signIn("maria")
            #expect(
                (try await client.execute(uri: "/__admin/consents", method: .get).json["consents"] as? [Any])?.count
                    == 1)
            let uploaded = try await client.postJSON("/__admin/scenarios?name=qa-1", scenario)
            #expect(uploaded.status == .ok)
            #expect((uploaded.json["available"] as? [String])?.contains("qa-1") == true)
            let switched = try await client.postJSON("/__admin/scenario", #"{"name":"qa-1"}"#, method: .put)
            #expect(switched.json["name"] as? String == "qa-1")
            #expect(
                (try await client.execute(uri: "/__admin/consents", method: .get).json["consents"] as? [Any])?.isEmpty
                    == true)
            let unknown = try await client.postJSON("/__admin/scenario", #"{"name":"nope"}"#, method: .put)
            #expect(unknown.status == .badRequest)
            #expect((unknown.json["message"] as? String)?.contains("no scenario named \"nope\"") == true)
            let broken = try await client.postJSON(
                "/__admin/scenarios?name=broken", #"{"teams": 1, "appGroups": [], "users": []}"#)
            #expect((broken.json["problems"] as? [[String: String]])?.first?["path"] == "$.teams")
        }
    }

    @Test("settings are patched with precise errors for bad values")
    func settings() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let patched = try await client.postJSON(
                "/__admin/settings", #"{"idTokenLifetimeSeconds": 600}"#, method: .patch)
            #expect(patched.json["idTokenLifetimeSeconds"] as? Int == 600)
            let bad = try await client.postJSON(
                "/__admin/settings", #"{"pkce": "sometimes", "nope": 1}"#, method: .patch)
            let paths = (bad.json["problems"] as? [[String: String]])?.compactMap { $0["path"] }.sorted()
            #expect(paths == ["$.nope", "$.pkce"])
            let unknownKey = try await client.postJSON(
                "/__admin/settings", #"{"signingKeyId": "missing"}"#, method: .patch)
            #expect(unknownKey.status == .badRequest)
            #expect(
                try await client.execute(uri: "/__admin/settings", method: .get).json["idTokenLifetimeSeconds"] as? Int
                    == 600)
        }
    }

    @Test("reset clears consents")
    func reset() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            _ = try await client.signIn("maria")
            #expect(try await client.execute(uri: "/__admin/reset", method: .post).status == .ok)
            #expect(try await client.signIn("maria")["user"] != nil)
        }
    }
}
