import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// Namespaces over HTTP: whole worlds on one server, chosen by prefix, header, what the mock
/// issued, a claimed client_id or the cookie, and managed on `/__admin/namespaces`.
@Suite("Namespaces: router")
struct NamespaceRouterTests {
    private static let header = HTTPField.Name(NamespaceName.header)!

    private func put(_ client: some TestClientProtocol, _ name: String, _ body: String = "{}") async throws
        -> TestResponse
    {
        try await client.postJSON("/__admin/namespaces/\(name)", body, method: .put)
    }

    private func get(_ client: some TestClientProtocol, _ uri: String, headers: HTTPFields = [:]) async throws
        -> TestResponse
    {
        try await client.execute(uri: uri, method: .get, headers: headers)
    }

    private func journal(_ client: some TestClientProtocol, _ prefix: String) async throws -> [[String: Any]] {
        try #require(try await get(client, "\(prefix)/__admin/journal?limit=1000").json["entries"] as? [[String: Any]])
    }

    @Test("the clock, faults and scenario of one namespace are its own; prefix and header name the same world")
    func isolation() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            #expect(try await put(client, "team-a").status == .created)
            #expect(try await put(client, "team-a").status == .ok)
            let moved = try await client.postJSON("/ns/team-a/__admin/clock", #"{"advanceSeconds": 86400}"#)
            #expect(moved.json["offsetSeconds"] as? Double == 86400)
            #expect(try await get(client, "/__admin/clock").json["offsetSeconds"] as? Double == 0)
            var headers = HTTPFields()
            headers[Self.header] = "team-a"
            #expect(try await get(client, "/__admin/clock", headers: headers).json["offsetSeconds"] as? Double == 86400)
            // A fault in team-a: its token calls fail, the default's do not.
            let fault = try await client.postJSON(
                "/ns/team-a/__admin/faults", #"{"endpoint":"token","error":"invalid_grant","times":5}"#)
            #expect(fault.status == .created)
            let secret = try await Fixture.secret(now: Fixture.start)
            let code = try #require(try await client.signIn("sam")["code"])
            #expect(try await client.exchange(code: code, secret: secret).status == .ok)
            #expect(try #require(try await get(client, "/__admin/faults").json["faults"] as? [Any]).isEmpty)
            // Reset in team-a leaves the default's session alone.
            #expect(try await client.execute(uri: "/ns/team-a/__admin/reset", method: .post).status == .ok)
            #expect(try #require(try await get(client, "/__admin/consents").json["consents"] as? [Any]).count == 1)
        }
    }

    @Test("zero change: a code and tokens minted in a namespace are served in it on Apple's plain URLs")
    func issuedValuesCarryTheirNamespace() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            #expect(try await put(client, "team-a").status == .created)
            let secret = try await Fixture.secret(now: Fixture.start)
            let pairs = [
                ("client_id", Fixture.webClient), ("redirect_uri", Fixture.redirect),
                ("response_type", "code"), ("response_mode", "form_post"), ("scope", "email"),
                ("state", "s"), ("login_hint", "sam"),
            ]
            let page = try await client.execute(
                uri: "/ns/team-a/auth/authorize?" + FormParameters.encode(pairs), method: .get)
            let code = try #require(Fixture.hiddenFields(String(buffer: page.body))["code"])
            let exchanged = try await client.exchange(code: code, secret: secret)
            #expect(exchanged.status == .ok)
            let refresh = try #require(exchanged.json["refresh_token"] as? String)
            #expect(try await client.refresh(refresh, secret: secret).status == .ok)
            // The default namespace's sam is another account.
            let teamSub = Fixture.claims(of: try #require(exchanged.json["id_token"] as? String))["sub"] as? String
            let homeCode = try #require(try await client.signIn("sam")["code"])
            let home = try await client.exchange(code: homeCode, secret: secret)
            let homeSub = Fixture.claims(of: try #require(home.json["id_token"] as? String))["sub"] as? String
            #expect(teamSub != nil && homeSub != nil && teamSub != homeSub)
            // Journals: each namespace's calls in its own.
            let teamJournal = try await journal(client, "/ns/team-a")
            #expect(teamJournal.map { $0["endpoint"] as? String } == ["token", "token", "authorize"])
            #expect(teamJournal.allSatisfy { $0["namespace"] as? String == "team-a" })
            let homeJournal = try await journal(client, "")
            #expect(homeJournal.map { $0["endpoint"] as? String } == ["token", "authorize"])
            #expect(homeJournal.allSatisfy { $0["namespace"] as? String == "default" })
            let everywhere = try #require(
                try await get(client, "/__admin/journal?namespace=*&limit=1000").json["entries"] as? [Any])
            #expect(everywhere.count == 5)
            #expect(try await get(client, "/ns/team-a/__admin/journal?namespace=*").status == .badRequest)
            // A reset in team-a revokes its tokens, not the default's.
            _ = try await client.execute(uri: "/ns/team-a/__admin/reset", method: .post)
            let refused = try await client.refresh(refresh, secret: secret)
            #expect(refused.json["error"] as? String == "invalid_grant")
            let homeRefresh = try #require(home.json["refresh_token"] as? String)
            #expect(try await client.refresh(homeRefresh, secret: secret).status == .ok)
            // Presented under another namespace's prefix, a token is not found there.
            let stray = try await client.postForm(
                "/ns/team-b/auth/token",
                [
                    ("grant_type", "refresh_token"), ("client_id", Fixture.webClient), ("client_secret", secret),
                    ("refresh_token", homeRefresh),
                ])
            #expect(stray.json["error"] as? String == "invalid_grant")
        }
    }

    @Test("a claimed client_id brings unprefixed sign-ins to its namespace; a client belongs to one")
    func claims() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let made = try await put(client, "team-b", #"{"clients": ["com.example.web"], "identities": "shared"}"#)
            #expect(made.status == .created)
            #expect(made.json["identities"] as? String == "shared")
            let clash = try await put(client, "team-c", #"{"clients": ["com.example.web"]}"#)
            #expect(clash.status == .conflict)
            #expect((clash.json["message"] as? String)?.contains("team-b") == true)
            let secret = try await Fixture.secret(now: Fixture.start)
            let code = try #require(try await client.signIn("sam")["code"])
            let exchanged = try await client.exchange(code: code, secret: secret)
            #expect(exchanged.status == .ok)
            #expect(try await journal(client, "/ns/team-b").count == 2)
            #expect(try await journal(client, "").isEmpty)
            // Shared identities: the default namespace's sub.
            let sub = Fixture.claims(of: try #require(exchanged.json["id_token"] as? String))["sub"] as? String
            let world = try Fixture.defaultWorld()
            #expect(sub == world.subject(of: try #require(world.users["sam"]), teamId: Fixture.teamId))
        }
    }

    @Test("the consent page posts back into its namespace, named by the header or the prefix")
    func consentFormKeepsTheNamespace() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let pairs = [
                ("client_id", Fixture.webClient), ("redirect_uri", Fixture.redirect), ("response_type", "code"),
                ("response_mode", "form_post"), ("scope", "email"), ("state", "s"),
            ]
            var headers = HTTPFields()
            headers[Self.header] = "team-a"
            let byHeader = String(buffer: try await client.authorize(pairs, headers: headers).body)
            #expect(byHeader.contains(#"action="/ns/team-a/auth/authorize/consent""#))
            let byPrefix = try await client.execute(
                uri: "/ns/team-b/auth/authorize?" + FormParameters.encode(pairs), method: .get)
            #expect(String(buffer: byPrefix.body).contains(#"action="/ns/team-b/auth/authorize/consent""#))
            let plain = String(buffer: try await client.authorize(pairs).body)
            #expect(plain.contains(#"action="/auth/authorize/consent""#))
        }
    }

    @Test("/metrics counts every namespace's notifications, not only the default's")
    func metricsCountEveryNamespace() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            // Every status: the delivery service may have taken it already.
            func notifications() async throws -> Double {
                let page = String(buffer: try await get(client, "/metrics").body)
                return page.split(separator: "\n").filter { $0.hasPrefix("appleidmock_notifications{") }
                    .compactMap { Double($0.split(separator: " ").last ?? "") }.reduce(0, +)
            }
            let before = try await notifications()
            let pairs = [
                ("client_id", Fixture.webClient), ("redirect_uri", Fixture.redirect), ("response_type", "code"),
                ("response_mode", "form_post"), ("scope", "email"), ("state", "s"), ("login_hint", "sam"),
            ]
            _ = try await client.execute(uri: "/ns/team-a/auth/authorize?" + FormParameters.encode(pairs), method: .get)
            let fired = try await client.postJSON(
                "/ns/team-a/__admin/events", #"{"type": "account-delete", "user": "sam"}"#)
            #expect(fired.status == .created || fired.status == .ok)
            let queued = try #require(fired.json["notificationIds"] as? [Any]).count
            #expect(queued > 0)
            let after = try await notifications()
            #expect(after == before + Double(queued), "before \(before), queued \(queued), after \(after)")
        }
    }

    @Test("a badly formed name is refused in the format of the surface it came to")
    func badNames() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let apple = try await client.execute(uri: "/ns/team%20a/auth/keys", method: .get)
            #expect(apple.status == .badRequest)
            #expect(apple.json["error"] as? String == "invalid_request")
            let admin = try await client.execute(uri: "/ns/team%20a/__admin/clock", method: .get)
            #expect(admin.status == .badRequest)
            #expect(admin.json["error"] as? String == "invalid_request")
            #expect((admin.json["message"] as? String)?.contains("/ns/{name}") == true)
            var headers = HTTPFields()
            headers[Self.header] = String(repeating: "x", count: 65)
            let header = try await get(client, "/__admin/clock", headers: headers)
            #expect(header.status == .badRequest)
            #expect((header.json["message"] as? String)?.contains(NamespaceName.header) == true)
            #expect(try await put(client, "a%2Fb").status == .badRequest)
            let body = try await put(client, "team-a", #"{"identities": "mine", "idleTtlSeconds": 0, "extra": 1}"#)
            #expect(body.status == .badRequest)
            let problems = try #require(body.json["problems"] as? [[String: Any]])
            #expect(
                Set(problems.compactMap { $0["path"] as? String }) == ["$.identities", "$.idleTtlSeconds", "$.extra"])
            let scenario = try await put(client, "team-a", #"{"scenario": "nope"}"#)
            #expect(scenario.status == .badRequest)
            #expect(try await get(client, "/__admin/namespaces/team-a").status == .notFound)
        }
    }

    @Test("listing, reading, deleting: default cannot go; a deleted namespace forgets its tokens")
    func lifecycle() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            _ = try await put(client, "team-a", #"{"scenario": "default", "idleTtlSeconds": 600}"#)
            let secret = try await Fixture.secret(now: Fixture.start)
            var headers = HTTPFields()
            headers[Self.header] = "team-a"
            let pairs = [
                ("client_id", Fixture.webClient), ("redirect_uri", Fixture.redirect), ("response_type", "code"),
                ("response_mode", "query"), ("state", "s"), ("login_hint", "sam"),
            ]
            let redirect = try await client.authorize(pairs, headers: headers)
            let location = try #require(redirect.headers[.location])
            let code = try #require(Fixture.parameters(ofLocation: location, separator: "?")["code"])
            let refresh = try #require(
                try await client.exchange(code: code, secret: secret).json["refresh_token"] as? String)
            let listing = try await get(client, "/__admin/namespaces")
            let names = try #require(listing.json["namespaces"] as? [[String: Any]]).map { $0["name"] as? String }
            #expect(names == ["default", "team-a"])
            #expect(listing.json["limit"] as? Int == 1000)
            let one = try await get(client, "/__admin/namespaces/team-a")
            #expect(one.json["idleTtlSeconds"] as? Int == 600)
            #expect((one.json["counts"] as? [String: Int])?["consents"] == 1)
            #expect(try await get(client, "/__admin/namespaces/default").json["name"] as? String == "default")
            #expect(try await client.execute(uri: "/__admin/namespaces/default", method: .delete).status == .badRequest)
            #expect(try await put(client, "default").status == .conflict)
            #expect(try await client.execute(uri: "/__admin/namespaces/team-a", method: .delete).status == .ok)
            #expect(try await client.execute(uri: "/__admin/namespaces/team-a", method: .delete).status == .notFound)
            #expect(try await client.refresh(refresh, secret: secret).json["error"] as? String == "invalid_grant")
            // Named again, it is made anew from the initial scenario, empty.
            #expect(
                try #require(try await get(client, "/ns/team-a/__admin/consents").json["consents"] as? [Any]).isEmpty)
        }
    }

    @Test("keys: a namespace's kids are not the default's; /auth/keys without a namespace publishes them all")
    func keys() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            func kids(_ uri: String) async throws -> Set<String> {
                let keys = try #require(try await get(client, uri).json["keys"] as? [[String: Any]])
                return Set(keys.compactMap { $0["kid"] as? String })
            }
            let home = try await kids("/auth/keys")
            _ = try await put(client, "team-a")
            let team = try await kids("/ns/team-a/auth/keys")
            #expect(team.count == home.count && team.isDisjoint(with: home))
            #expect(try await kids("/auth/keys") == home.union(team))
            let unpublished = try #require(team.first)
            let changed = try await client.execute(
                uri: "/ns/team-a/__admin/keys/\(unpublished)/unpublish", method: .post)
            #expect(changed.status == .ok)
            #expect(try await kids("/auth/keys") == home.union(team).subtracting([unpublished]))
            let document = try await get(client, "/ns/team-a/.well-known/openid-configuration")
            #expect(document.json["issuer"] as? String == "https://appleid.apple.com")
            #expect((document.json["jwks_uri"] as? String)?.hasSuffix("/ns/team-a/auth/keys") == true)
        }
    }

    @Test("the idle sweep removes a namespace unused past its idle time; the limit refuses the 1001st")
    func idleAndLimit() async throws {
        let services = try await MockServices.load(
            configuration: Fixture.configuration(), store: MemoryStore(), clock: .fixed(at: Fixture.start),
            logger: .init(label: "test"))
        let namespaces = services.namespaces
        try await namespaces.put("brief", NamespaceOptions(idleTtlSeconds: 60))
        try await namespaces.put("lasting", NamespaceOptions())
        #expect(try await namespaces.removeIdle(now: Date().addingTimeInterval(30)).isEmpty)
        #expect(try await namespaces.removeIdle(now: Date().addingTimeInterval(120)) == ["brief"])
        #expect(try await namespaces.records().map(\.name) == ["lasting"])
        for index in 1..<Namespaces.limit { try await namespaces.put("n\(index)", NamespaceOptions()) }
        await #expect(throws: ControlRefusal.self) { try await namespaces.put("one-more", NamespaceOptions()) }
        await #expect(throws: ControlRefusal.self) { _ = try await namespaces.state(for: "one-more") }
        // An existing one is still changed.
        #expect(try await namespaces.put("n1", NamespaceOptions(identities: .shared)).created == false)
    }
}
