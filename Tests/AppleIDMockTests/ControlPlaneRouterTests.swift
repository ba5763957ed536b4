import Foundation
import Hummingbird
import HummingbirdTesting
import JWTKit
import Testing

@testable import AppleIDMock

/// The control plane for QA and CI: fault rules, keys, the clock, minted tokens and the journal,
/// driven over HTTP as a test suite or a tester drives them.
@Suite("Control plane: faults, keys, minted tokens, the journal, hardening")
struct ControlPlaneRouterTests {
    /// Signs sam in to the web client and returns the refresh token.
    private func refreshToken(_ client: some TestClientProtocol, secret: String) async throws -> String {
        let code = try #require(try await client.signIn("sam")["code"])
        let exchanged = try await client.exchange(code: code, secret: secret)
        return try #require(exchanged.json["refresh_token"] as? String)
    }

    private func delete(_ client: some TestClientProtocol, _ uri: String) async throws -> TestResponse {
        try await client.execute(uri: uri, method: .delete)
    }

    @Test(
        "invalid_grant on the next refresh: one call fails as Apple would, the next succeeds; the journal names the rule"
    )
    func nextRefreshFails() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let secret = try await Fixture.secret()
            let token = try await refreshToken(client, secret: secret)
            let added = try await client.postJSON(
                "/__admin/faults",
                #"{"endpoint":"token","grantType":"refresh_token","error":"invalid_grant","errorDescription":"The token has expired or has been revoked.","times":1}"#
            )
            #expect(added.status == .created)
            let id = try #require(added.json["id"] as? String)
            // A code exchange does not match a refresh-only rule.
            let failed = try await client.refresh(token, secret: secret)
            #expect(failed.status == .badRequest)
            #expect(failed.json["error"] as? String == "invalid_grant")
            #expect(failed.json["error_description"] as? String == "The token has expired or has been revoked.")
            #expect(try await client.refresh(token, secret: secret).status == .ok)
            let listed = try #require(
                try await client.execute(uri: "/__admin/faults", method: .get).json["faults"] as? [[String: Any]])
            #expect(listed.first?["fired"] as? Int == 1 && listed.first?["remaining"] as? Int == 0)
            let journal = try #require(
                try await client.execute(uri: "/__admin/journal?endpoint=token&limit=2", method: .get)
                    .json["entries"] as? [[String: Any]])
            #expect(journal.map { $0["outcome"] as? String } == ["ok", "invalid_grant"])
            #expect(journal[1]["fault"] as? String == id)
            // The refused refresh is still attributed to sam: his refresh token was issued in the journal.
            #expect(journal[1]["userKey"] as? String == "sam")
            #expect(journal[0]["userKey"] as? String == "sam")
            #expect(journal[0]["clientSecretKeyId"] as? String == "ABC123DEFG")
            #expect(journal[0]["clientSecretTeamId"] as? String == Fixture.teamId)
        }
    }

    @Test("Apple down: a status with a body and Retry-After, then a truncated JWKS, each for one call")
    func statusAndTruncation() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            _ = try await client.postJSON(
                "/__admin/faults",
                #"{"endpoint":"keys","status":503,"body":"<html>Service Unavailable</html>","retryAfterSeconds":5,"times":1}"#
            )
            let down = try await client.execute(uri: "/auth/keys", method: .get)
            #expect(down.status == .serviceUnavailable)
            #expect(down.headers[.retryAfter] == "5")
            #expect(String(buffer: down.body) == "<html>Service Unavailable</html>")
            let whole = try await client.execute(uri: "/auth/keys", method: .get)
            #expect(whole.status == .ok)
            _ = try await client.postJSON("/__admin/faults", #"{"endpoint":"keys","truncate":true,"times":1}"#)
            let cut = try await client.execute(uri: "/auth/keys", method: .get)
            #expect(cut.status == .ok)
            #expect(cut.body.readableBytes == whole.body.readableBytes / 2)
            #expect((try? JSONSerialization.jsonObject(with: Data(buffer: cut.body))) == nil)
        }
    }

    @Test("bad fault rules get a 4xx naming the problem and change nothing; reset clears rules")
    func faultErrors() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let unknown = try await client.postJSON(
                "/__admin/faults", #"{"endpoint":"userinfo","error":"invalid_grant"}"#)
            #expect(unknown.status == .badRequest)
            #expect((unknown.json["message"] as? String)?.contains("$.endpoint: \"userinfo\" is not one of") == true)
            let negative = try await client.postJSON(
                "/__admin/faults", #"{"endpoint":"token","latencyMilliseconds":-1}"#)
            #expect(negative.status == .badRequest)
            #expect((negative.json["message"] as? String)?.contains("$.latencyMilliseconds") == true)
            #expect(try await client.postJSON("/__admin/faults", #"{"endpoint":"token","#).status == .badRequest)
            let missing = try await delete(client, "/__admin/faults/f99")
            #expect(missing.status == .notFound)
            #expect((missing.json["message"] as? String)?.contains("no fault rule \"f99\"") == true)
            let empty = try await client.execute(uri: "/__admin/faults", method: .get).json["faults"] as? [Any]
            #expect(empty?.isEmpty == true)
            _ = try await client.postJSON("/__admin/faults", #"{"endpoint":"keys","status":500}"#)
            _ = try await client.postJSON("/__admin/faults", #"{"endpoint":"revoke","status":500}"#)
            #expect(try await delete(client, "/__admin/faults/f1").json["deleted"] as? String == "f1")
            #expect(try await client.execute(uri: "/auth/keys", method: .get).status == .ok)
            _ = try await client.execute(uri: "/__admin/reset", method: .post)
            #expect(
                (try await client.execute(uri: "/__admin/faults", method: .get).json["faults"] as? [Any])?.isEmpty
                    == true)
        }
    }

    @Test("the default JWKS: 3 keys, shuffled per response, the signing key not always first")
    func jwksAsInTheField() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            var orders = Set<[String]>()
            var signingFirst = 0
            for _ in 0..<40 {
                let keys = try #require(
                    try await client.execute(uri: "/auth/keys", method: .get).json["keys"] as? [[String: String]])
                #expect(keys.count >= 3)
                orders.insert(keys.compactMap { $0["kid"] })
                if keys.first?["kid"] == "Mk7pQ2xR9a" { signingFirst += 1 }
            }
            #expect(orders.count > 1)
            #expect(signingFirst < 40)
        }
    }

    @Test("rotation: the new key signs, the old stay published for the grace period on the mock's clock")
    func rotation() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            func publishedKids() async throws -> Set<String> {
                let keys = try await client.execute(uri: "/auth/keys", method: .get).json["keys"] as? [[String: String]]
                return Set((keys ?? []).compactMap { $0["kid"] })
            }
            func mintedKid() async throws -> String? {
                let minted = try await client.postJSON(
                    "/__admin/mint/id-token", #"{"user":"sam","clientId":"com.example.web"}"#)
                return (minted.json["header"] as? [String: Any])?["kid"] as? String
            }
            let before = try await publishedKids()
            let rotated = try await client.postJSON("/__admin/keys/rotate", #"{"graceSeconds":600}"#)
            #expect(rotated.status == .created)
            let kid = try #require(rotated.json["kid"] as? String)
            #expect(try await mintedKid() == kid)
            #expect(try await publishedKids() == before.union([kid]))
            _ = try await client.postJSON("/__admin/clock", #"{"advanceSeconds":601}"#)
            #expect(try await publishedKids() == [kid])
            // A key that signs before it is published: a backend that never refetches fails.
            let hidden = try await client.postJSON("/__admin/keys/rotate", #"{"publish":false}"#)
            let hiddenKid = try #require(hidden.json["kid"] as? String)
            #expect(try await mintedKid() == hiddenKid)
            #expect(!(try await publishedKids()).contains(hiddenKid))
            #expect(try await client.execute(uri: "/__admin/keys/\(hiddenKid)/publish", method: .post).status == .ok)
            #expect((try await publishedKids()).contains(hiddenKid))
            #expect(try await client.execute(uri: "/__admin/keys/\(kid)/unpublish", method: .post).status == .ok)
            #expect(!(try await publishedKids()).contains(kid))
            #expect(try await client.execute(uri: "/__admin/keys/\(kid)/sign", method: .post).status == .ok)
            #expect(try await mintedKid() == kid)
            let unknown = try await client.execute(uri: "/__admin/keys/NOPE/publish", method: .post)
            #expect(unknown.status == .notFound)
            #expect(try await client.postJSON("/__admin/keys/rotate", #"{"graceSeconds":-1}"#).status == .badRequest)
            let listing = try #require(
                try await client.execute(uri: "/__admin/keys", method: .get).json["keys"] as? [[String: Any]])
            #expect(listing.count == 5)
            #expect(listing.filter { $0["signing"] as? Bool == true }.map { $0["kid"] as? String } == [kid])
            // A settings patch naming a key goes with the key.
            _ = try await client.postJSON("/__admin/settings", #"{"signingKeyId":"\#(hiddenKid)"}"#, method: .patch)
            #expect(try await mintedKid() == hiddenKid)
            _ = try await client.execute(uri: "/__admin/keys/Mk7pQ2xR9a/sign", method: .post)
            #expect(try await delete(client, "/__admin/keys/\(hiddenKid)").status == .ok)
            #expect(try await client.postJSON("/__admin/settings", #"{"pkce":"off"}"#, method: .patch).status == .ok)
            _ = try await delete(client, "/__admin/keys")
            #expect(try await publishedKids() == before)
            #expect(try await mintedKid() == "Mk7pQ2xR9a")
        }
    }

    @Test("the clock freezes, moves while frozen, and runs on from where it stood")
    func freeze() async throws {
        let clock = MockClock.fixed(at: Fixture.start)
        let app = try await Fixture.application(clock: clock)
        try await app.test(.router) { client in
            func now() async throws -> Int? {
                try await client.execute(uri: "/__admin/clock", method: .get).json["now"] as? Int
            }
            let frozen = try await client.postJSON("/__admin/clock", #"{"freeze":true}"#)
            #expect(frozen.json["frozen"] as? Bool == true)
            let start = try #require(try await now())
            clock.advance(by: 100)  // the base clock runs on
            #expect(try await now() == start)
            _ = try await client.postJSON("/__admin/clock", #"{"advanceSeconds":10}"#)
            #expect(try await now() == start + 10)
            let thawed = try await client.postJSON("/__admin/clock", #"{"freeze":false}"#)
            #expect(thawed.json["frozen"] as? Bool == false)
            clock.advance(by: 5)
            #expect(try await now() == start + 15)
            #expect(try await client.postJSON("/__admin/clock", #"{"freeze":"yes"}"#).status == .badRequest)
        }
    }

    @Test("minted id_tokens: a valid one passes jwt-kit, each defect is rejected or visible")
    func mintIdTokens() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Date()))
        try await app.test(.router) { client in
            let jwks = String(buffer: try await client.execute(uri: "/auth/keys", method: .get).body)
            func mint(_ extra: String) async throws -> [String: Any] {
                let body = #"{"user":"sam","clientId":"com.example.web","nonce":"n-1""# + extra + "}"
                let response = try await client.postJSON("/__admin/mint/id-token", body)
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                return response.json
            }
            let valid = try await mint(#","set":{"email_verified":"true"},"remove":["at_hash"]"#)
            let token = try #require(valid["token"] as? String)
            let verified = try await LiveRelyingPartyTests.verify(token, jwks: jwks, audience: Fixture.webClient)
            #expect(verified.nonce == "n-1")
            let claims = Fixture.claims(of: token)
            #expect(claims["email_verified"] as? String == "true" && claims["at_hash"] == nil)
            #expect(valid["expected"] as? String == "accept")
            for defect in [
                "expired", "wrong-iss", "wrong-aud", "bad-signature", "alg-none", "hs256-public-key", "unknown-kid",
            ] {
                let minted = try await mint(#","defect":""# + defect + #"""#)
                #expect(minted["expected"] as? String == "reject")
                let forged = try #require(minted["token"] as? String)
                await #expect(throws: (any Error).self, "\(defect) was accepted") {
                    _ = try await LiveRelyingPartyTests.verify(forged, jwks: jwks, audience: Fixture.webClient)
                }
            }
            let header = { (defect: String) async throws -> [String: Any] in
                Fixture.header(of: try #require(try await mint(#","defect":""# + defect + #"""#)["token"] as? String))
            }
            #expect(try await header("missing-kid")["kid"] == nil)
            #expect(try await header("hs256-public-key")["alg"] as? String == "HS256")
            #expect(try await header("alg-none")["alg"] as? String == "none")
            let early = Fixture.claims(
                of: try #require(try await mint(#","defect":"not-yet-valid""#)["token"] as? String))
            #expect((early["iat"] as? Int ?? 0) > Int(Date().timeIntervalSince1970) + 3_000)
            let nonce = Fixture.claims(
                of: try #require(try await mint(#","defect":"wrong-nonce""#)["token"] as? String))
            #expect(nonce["nonce"] as? String != "n-1")
            let native = try await client.postJSON(
                "/__admin/mint/id-token", #"{"user":"sam","clientId":"com.example.app","flow":"native"}"#)
            #expect(Fixture.claims(of: try #require(native.json["token"] as? String))["real_user_status"] != nil)
            let wrong = try await client.postJSON(
                "/__admin/mint/id-token", #"{"user":"sam","clientId":"com.example.web","defect":"sideways"}"#)
            #expect(wrong.status == .badRequest)
            let nobody = try await client.postJSON(
                "/__admin/mint/id-token", #"{"user":"nobody","clientId":"com.example.web"}"#)
            #expect(nobody.status == .notFound)
        }
    }

    @Test("the journal: fingerprints only, filters, and the revoke attributed to sam after his account was deleted")
    func journal() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            // The deletion queues a notification that the background worker tries once (a fault rule
            // drops it, so nothing goes on the network); the test waits for that attempt to be over,
            // so the journal it reads no longer changes under it.
            #expect(
                try await client.postJSON("/__admin/settings", #"{"notificationMaxAttempts":1}"#, method: .patch)
                    .status == .ok)
            #expect(
                try await client.postJSON("/__admin/faults", #"{"endpoint":"notifications","drop":true}"#).status
                    == .created
            )
            let secret = try await Fixture.secret()
            let token = try await refreshToken(client, secret: secret)
            _ = try await client.postJSON("/__admin/events", #"{"type":"account-delete","user":"sam"}"#)
            let revoked = try await client.postForm(
                "/auth/revoke",
                [
                    ("client_id", Fixture.webClient), ("client_secret", secret), ("token", token),
                    ("token_type_hint", "refresh_token"),
                ])
            #expect(revoked.status == .ok)
            let attempted = try await Waiting.until(seconds: 10) {
                let listed = try await client.execute(uri: "/__admin/notifications", method: .get)
                let records = listed.json["notifications"] as? [[String: Any]] ?? []
                return records.count == 1 && records.allSatisfy { $0["status"] as? String == "failed" }
            }
            #expect(attempted)
            let page = try await client.execute(uri: "/__admin/journal?user=sam", method: .get)
            let text = String(buffer: page.body)
            #expect(!text.contains(secret) && !text.contains(token))
            let entries = try #require(page.json["entries"] as? [[String: Any]])
            // The delivery attempt may start before or after the revoke: Apple's calls are compared in order.
            let calls = entries.filter { $0["endpoint"] as? String != "notifications" }
            #expect(calls.map { $0["endpoint"] as? String } == ["revoke", "token", "authorize"])
            let delivery = entries.filter { $0["endpoint"] as? String == "notifications" }
            #expect(delivery.map { $0["notificationType"] as? String } == ["account-delete"])
            #expect(delivery.map { $0["outcome"] as? String } == ["dropped"])
            let fingerprints = try #require(calls.first?["fingerprints"] as? [String: String])
            #expect(fingerprints["token"] == Fingerprint.of(token))
            #expect(fingerprints["client_secret"] == Fingerprint.of(secret))
            #expect(fingerprints.values.allSatisfy { $0.count == 8 })
            let issued = try #require(calls.dropFirst().first?["issued"] as? [String: String])
            #expect(issued["refresh_token"] == Fingerprint.of(token))
            // Only the dropped delivery is an error; every call to Apple's endpoints succeeded.
            let errors = try #require(
                try await client.execute(uri: "/__admin/journal?outcome=error", method: .get).json["entries"]
                    as? [[String: Any]])
            #expect(errors.map { $0["endpoint"] as? String } == ["notifications"])
            let bad = try await client.execute(uri: "/__admin/journal?since=yesterday&colour=red", method: .get)
            #expect(bad.status == .badRequest)
            #expect((bad.json["problems"] as? [Any])?.count == 2)
            let everything = try await client.execute(uri: "/__admin/journal", method: .get).json["entries"] as? [Any]
            let cleared = try await delete(client, "/__admin/journal").json["cleared"] as? Int
            #expect(cleared == everything?.count && (cleared ?? 0) >= 4)
            #expect(
                (try await client.execute(uri: "/__admin/journal", method: .get).json["entries"] as? [Any])?.isEmpty
                    == true)
        }
    }

    @Test("the journal keeps the newest journalLimit calls, however many arrive between two writes")
    func journalLimit() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            #expect(
                try await client.postJSON("/__admin/settings", #"{"journalLimit":10}"#, method: .patch).status == .ok)
            let secret = try await Fixture.secret()
            let token = try await refreshToken(client, secret: secret)
            for _ in 0..<20 { _ = try await client.execute(uri: "/auth/keys", method: .get) }
            _ = try await client.postForm(
                "/auth/revoke", [("client_id", Fixture.webClient), ("client_secret", secret), ("token", token)])
            let entries = try #require(
                try await client.execute(uri: "/__admin/journal", method: .get).json["entries"] as? [[String: Any]])
            #expect(entries.map { $0["endpoint"] as? String } == ["revoke"] + Array(repeating: "keys", count: 9))
            #expect(entries[0]["userKey"] as? String == "sam")
        }
    }

    @Test("hardening: 50 problems at most, upload bounds and names, deep JSON")
    func hardening() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let keys = (0..<5_000).map { #""unknown\#($0)":1"# }.joined(separator: ",")
            let patched = try await client.postJSON("/__admin/settings", "{\(keys)}", method: .patch)
            #expect(patched.status == .badRequest)
            #expect((patched.json["problems"] as? [Any])?.count == 50)
            #expect(patched.json["moreProblems"] as? Int == 4_950)
            #expect(patched.body.readableBytes < 100_000)
            let scenario = try String(contentsOfFile: Fixture.scenariosDirectory + "/default.json", encoding: .utf8)
            for name in ["..", ".", "a%2Fb", "%C3%A9"] {
                let refused = try await client.postJSON("/__admin/scenarios?name=\(name)", scenario)
                #expect(refused.status == .badRequest, "\(name)")
            }
            let huge = try await client.postJSON(
                "/__admin/scenarios?name=huge", "{\"description\":\"" + String(repeating: "x", count: 1_100_000) + "\"}"
            )
            #expect(huge.status == .contentTooLarge)
            #expect(huge.json["limit"] as? Int == 1_048_576)
            let deep = try await client.postJSON(
                "/__admin/settings", String(repeating: "[", count: 512) + String(repeating: "]", count: 512),
                method: .patch)
            #expect(deep.status == .badRequest)
            #expect((deep.json["message"] as? String)?.contains("nested deeper than 64 levels") == true)
            for index in 0..<100 {
                let uploaded = try await client.postJSON("/__admin/scenarios?name=u\(index)", scenario)
                #expect(uploaded.status == .ok)
            }
            let full = try await client.postJSON("/__admin/scenarios?name=u100", scenario)
            #expect(full.status == .conflict)
            #expect(full.json["limit"] as? Int == 100)
            // Replacing one by name is fine.
            #expect(try await client.postJSON("/__admin/scenarios?name=u7", scenario).status == .ok)
        }
    }

    @Test("the control plane refuses what a browser tab can forge")
    func browserForgery() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let plain = try await client.execute(
                uri: "/__admin/reset", method: .post, headers: [.contentType: "text/plain"],
                body: ByteBuffer(string: "{}"))
            #expect(plain.status == .unsupportedMediaType)
            let foreign = try await client.execute(
                uri: "/__admin/reset", method: .post, headers: [.origin: "http://evil.example"])
            #expect(foreign.status == .forbidden)
            #expect(try await client.execute(uri: "/__admin/scenario", method: .get).status == .ok)
        }
    }

    @Test("with an admin token, every control-plane call needs it; Apple's endpoints stay open")
    func adminToken() async throws {
        var configuration = Fixture.configuration()
        configuration.adminToken = "s3cret-token"
        let app = try await buildApplication(configuration: configuration, clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let anonymous = try await client.execute(uri: "/__admin/scenario", method: .get)
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.json["error"] as? String == "unauthorized")
            #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            let wrong = try await client.execute(
                uri: "/__admin/scenario", method: .get, headers: [.authorization: "Bearer s3cret-tokeN"])
            #expect(wrong.status == .unauthorized)
            let right = try await client.execute(
                uri: "/__admin/scenario", method: .get, headers: [.authorization: "Bearer s3cret-token"])
            #expect(right.status == .ok)
            #expect(try await client.execute(uri: "/auth/keys", method: .get).status == .ok)
        }
    }

    @Test("GET /__admin/openapi.json serves the repository's OpenAPI 3.1 document")
    func openAPI() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let served = try await client.execute(uri: "/__admin/openapi.json", method: .get)
            #expect(served.status == .ok)
            let file = try Data(
                contentsOf: URL(fileURLWithPath: Fixture.root + "/Sources/AppleIDMock/Resources/openapi.json"))
            #expect(Data(buffer: served.body) == file)
            let document = try #require(try JSONSerialization.jsonObject(with: file) as? [String: Any])
            #expect((document["openapi"] as? String)?.hasPrefix("3.1") == true)
            let paths = try #require(document["paths"] as? [String: Any])
            for path in [
                "/__admin/faults", "/__admin/faults/{id}", "/__admin/keys", "/__admin/keys/rotate",
                "/__admin/mint/id-token", "/__admin/mint/notification", "/__admin/notifications/conformance",
                "/__admin/journal", "/auth/token", "/auth/keys",
            ] {
                #expect(paths[path] != nil, "\(path) is not described")
            }
        }
    }
}
