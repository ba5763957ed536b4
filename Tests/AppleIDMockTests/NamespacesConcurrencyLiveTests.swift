import Foundation
import HTTPTypes
import JWTKit
import Testing

@testable import AppleIDMock

/// Namespaces kept apart under concurrency: 16 namespaces at once on one server process, each in its own
/// task, switch scenarios, advance their clocks, rotate keys, inject a fault, and sign users in through
/// Apple's unprefixed URLs; no answer, journal entry or notification crosses a namespace boundary.
/// Runs on every store (PostgreSQL where it is available, as the other PostgreSQL suites).
@Suite("Namespaces live: 16 at once on one server", .tags(.live), .timeLimit(.minutes(6)))
struct NamespacesConcurrencyLiveTests {
    static let count = 16
    static let header = HTTPField.Name("X-Apple-ID-Mock-Namespace")!

    /// One namespace's part of the test: who it is and what it does.
    struct Tenant: Sendable {
        var index: Int
        var name: String { "proof-\(index)" }
        /// Even namespaces claim a client_id of their own (their scenario names it): their authorize
        /// goes to Apple's URL with nothing else (rule 4, the claimed client_id). Odd ones keep the
        /// bundled `com.example.web`, which 16 namespaces cannot all claim: their authorize carries
        /// the header (rule 2). Every later call (token, refresh, revoke) carries neither prefix nor
        /// header: the code and tokens carry their namespace (rule 3).
        var claims: Bool { index.isMultiple(of: 2) }
        var clientId: String { claims ? "com.example.web.\(name)" : Fixture.webClient }
        /// How far its clock is advanced: each namespace differs from the others by 10 minutes.
        var offset: Int { 600 * (index + 1) }

        /// `sub` of `user` in this namespace (`identities: own`).
        func sub(_ user: String) -> String {
            IdentifierDerivation.subject(userKey: "\(name)\u{0}\(user)", teamId: Fixture.teamId)
        }
    }

    /// What one namespace's task saw, for the checks across namespaces.
    struct Outcome: Sendable {
        var tenant: Tenant
        var rotatedKid: String
    }

    /// The state argument of a fresh store of `kind`.
    static func state(_ kind: StoreKind, _ children: ChildServers) async throws -> String {
        switch kind {
        case .memory: "memory"
        case .sqlite: "sqlite:" + children.file("state.sqlite")
        case .postgres: try await TestPostgres.freshDatabase()
        }
    }

    /// The default scenario with the example group notifying `url`, fast retries, and (when
    /// `clientId` is not the bundled one) its Services ID renamed to `clientId`.
    static func scenario(notifying url: String, clientId: String) throws -> String {
        var object =
            try JSONSerialization.jsonObject(with: Data(try LifecycleLiveTests.scenario(notificationUrl: url).utf8))
            as! [String: Any]
        var groups = object["appGroups"] as! [[String: Any]]
        var services = groups[0]["servicesIds"] as! [[String: Any]]
        services[0]["identifier"] = clientId
        groups[0]["servicesIds"] = services
        object["appGroups"] = groups
        return String(data: try JSONSerialization.data(withJSONObject: object), encoding: .utf8)!
    }

    @Test(
        "16 namespaces at once: scenarios, clocks, keys, faults and unprefixed sign-ins stay apart",
        arguments: TestPostgres.storeKinds)
    func sixteenAtOnce(kind: StoreKind) async throws {
        let inboxes = NamespaceInboxes()
        try await inboxes.serve { port in
            try await ChildServers.with { children in
                let server = try await children.start(state: try await Self.state(kind, children))
                let client = server.client
                let outcomes = try await withThrowingTaskGroup(of: Outcome.self) { group in
                    for index in 0..<Self.count {
                        group.addTask {
                            try await Self.run(
                                Tenant(index: index), on: server, notifying: "http://127.0.0.1:\(port)/notify",
                                inboxes: inboxes)
                        }
                    }
                    return try await group.reduce(into: [Outcome]()) { $0.append($1) }
                }
                try #require(outcomes.count == Self.count)
                try await Self.checkAcross(outcomes, on: client, inboxes: inboxes)
                await ServerProcess.stop(server)
            }
        }
    }

    /// One namespace's whole run.
    static func run(_ tenant: Tenant, on server: ServerProcess, notifying base: String, inboxes: NamespaceInboxes)
        async throws -> Outcome
    {
        let client = server.client
        let name = tenant.name
        let admin = "/ns/\(name)/__admin"
        let context = Comment(rawValue: name)

        // Made with the bundled `transfer` scenario; the even ones claim their own client_id.
        let claims = tenant.claims ? #", "clients": ["\#(tenant.clientId)"]"# : ""
        let made = try await client.json(
            "/__admin/namespaces/\(name)", #"{"scenario": "transfer", "identities": "own"\#(claims)}"#, method: "PUT")
        expect(made, 201, tenant, server)
        #expect(try await client.get("\(admin)/scenario").json["name"] as? String == "transfer", context)

        // Switches to a scenario of its own, which notifies its own endpoint.
        let scenarioText = try scenario(notifying: "\(base)/\(name)", clientId: tenant.clientId)
        let uploaded = try await client.send(
            "POST", "\(admin)/scenarios?name=live-\(name)&activate=true", body: scenarioText)
        expect(uploaded, 200, tenant, server)
        #expect(try await client.get("\(admin)/scenario").json["name"] as? String == "live-\(name)", context)

        // Its clock, a key rotation and a fault on the next token call.
        let advanced = try await client.json("\(admin)/clock", #"{"advanceSeconds": \#(tenant.offset)}"#)
        expect(advanced, 200, tenant, server)
        #expect(try await client.get("\(admin)/clock").json["offsetSeconds"] as? Double == Double(tenant.offset))
        let rotated = try await client.json("\(admin)/keys/rotate", #"{"graceSeconds": 600}"#)
        expect(rotated, 201, tenant, server)
        let kid = try #require(rotated.json["kid"] as? String, "\(context): \(rotated.text)")
        let fault = try await client.json("\(admin)/faults", #"{"endpoint": "token", "status": 503, "times": 1}"#)
        expect(fault, 201, tenant, server)

        let world = World(scenario: try ScenarioLoader.loadData(Data(scenarioText.utf8), name: "live-\(name)"))
        let secret = try await ClientSecretFactory.make(
            clientId: tenant.clientId, world: world, keysDirectory: Fixture.keysDirectory,
            now: Date().addingTimeInterval(Double(tenant.offset)))

        // 1. sam signs in on Apple's URL; exchange (the fault answers first), refresh, revoke: no prefix.
        let sam = try await signIn("sam", tenant, on: client)
        let code = try #require(sam["code"], "\(context): \(sam)")
        let faulted = try await client.exchange(code: code, clientId: tenant.clientId, secret: secret)
        #expect(faulted.status == .serviceUnavailable, "\(context): \(faulted.status)")
        let tokens = try await client.exchange(code: code, clientId: tenant.clientId, secret: secret)
        #expect(tokens.status == .ok, "\(context): \(String(buffer: tokens.body))")
        let idToken = try #require(tokens.json["id_token"] as? String, context)
        try await verify(idToken, of: "sam", tenant, kid: kid, on: client)
        let refreshToken = try #require(tokens.json["refresh_token"] as? String, context)
        let refreshed = try await client.refresh(refreshToken, clientId: tenant.clientId, secret: secret)
        #expect(refreshed.status == .ok, "\(context): \(String(buffer: refreshed.body))")
        try await verify(
            try #require(refreshed.json["id_token"] as? String, context), of: "sam", tenant, kid: kid, on: client)
        let revoked = try await client.postForm(
            "/auth/revoke", [("client_id", tenant.clientId), ("client_secret", secret), ("token", refreshToken)])
        #expect(revoked.status == 200, "\(context): \(revoked.text)")
        let refused = try await client.refresh(refreshToken, clientId: tenant.clientId, secret: secret)
        #expect(refused.json["error"] as? String == "invalid_grant", "\(context): \(String(buffer: refused.body))")

        // 2. maria signs in the same way; her consent is revoked by an event, notified to its endpoint.
        let maria = try await signIn("maria", tenant, on: client)
        let mariaTokens = try await client.exchange(
            code: try #require(maria["code"], "\(context): \(maria)"), clientId: tenant.clientId, secret: secret)
        #expect(mariaTokens.status == .ok, "\(context): \(String(buffer: mariaTokens.body))")
        let event = try await client.json(
            "\(admin)/events", #"{"type": "consent-revoked", "user": "maria", "appGroup": "example"}"#)
        expect(event, 200, tenant, server)
        let payloads = await inboxes.waitFor(name, count: 1)
        #expect(payloads.count == 1, context)
        for jwks in try await [client.get("/ns/\(name)/auth/keys").text, client.get("/auth/keys").text] {
            let (claims, events) = try await LifecycleLiveTests.verify(try #require(payloads.first), jwks: jwks)
            #expect(claims.aud.value == ["com.example.app"], context)
            #expect(events["type"] as? String == "consent-revoked" && events["sub"] as? String == tenant.sub("maria"))
        }

        // 3. Its journal: only its own entries, as many as it made (the keys reads above: one prefixed,
        // so in this namespace, per id_token and notification verified; the unprefixed ones are the default's).
        let journal = try await client.get("\(admin)/journal?limit=500&minCount=12&waitSeconds=10").json
        let entries = journal["entries"] as? [[String: Any]] ?? []
        #expect(entries.allSatisfy { $0["namespace"] as? String == name }, "\(context): \(entries)")
        let byEndpoint = Dictionary(entries.map { ($0["endpoint"] as? String ?? "?", 1) }, uniquingKeysWith: +)
        #expect(
            byEndpoint == ["authorize": 2, "token": 5, "revoke": 1, "keys": 3, "notifications": 1],
            "\(context): \(byEndpoint)")
        let subs = Set(entries.compactMap { $0["sub"] as? String })
        #expect(subs.isSubset(of: [tenant.sub("sam"), tenant.sub("maria")]), "\(context): \(subs)")
        let faults = try await client.get("\(admin)/faults").json["faults"] as? [[String: Any]] ?? []
        #expect(faults.count == 1 && faults.first?["fired"] as? Int == 1, "\(context): \(faults)")
        let mail = try await client.get("\(admin)/mail").json
        #expect((mail["entries"] as? [Any])?.isEmpty == true, "\(context): \(mail)")
        return Outcome(tenant: tenant, rotatedKid: kid)
    }

    /// Expects the control plane's `answer` to have `status`; otherwise records it with the server's
    /// last log lines about its store (a step that failed there answers 503 `store_unavailable`).
    static func expect(
        _ answer: LiveClient.Answer, _ status: Int, _ tenant: Tenant, _ server: ServerProcess,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard answer.status != status else { return }
        let log = server.stderr.split(separator: "\n").filter { $0.contains("store") || $0.contains("PostgreSQL") }
        let lines = log.suffix(10).joined(separator: "\n")
        Issue.record(
            "\(tenant.name): \(answer.status) instead of \(status): \(answer.text)\nthe server's log on its store:\n\(lines)",
            sourceLocation: sourceLocation)
    }

    /// Signs `user` in on `/auth/authorize` without a prefix (form_post), by the claimed client_id
    /// or, for a namespace that claims none, with the header.
    static func signIn(_ user: String, _ tenant: Tenant, on client: LiveClient) async throws -> [String: String] {
        let pairs = [
            ("client_id", tenant.clientId), ("redirect_uri", Fixture.redirect), ("response_type", "code id_token"),
            ("response_mode", "form_post"), ("scope", "name email"), ("state", "st-\(tenant.name)"),
            ("login_hint", user), ("nonce", "n-\(tenant.name)"),
        ]
        let headers: HTTPFields = tenant.claims ? [:] : [header: tenant.name]
        let response = try await client.authorize(pairs, headers: headers)
        return Fixture.hiddenFields(String(buffer: response.body))
    }

    /// Checks an id_token of `user` in `tenant`: signed by its rotated key, verified with its keys and
    /// with Apple's unprefixed `/auth/keys`, its `sub`, and issued on its own clock.
    static func verify(_ token: String, of user: String, _ tenant: Tenant, kid: String, on client: LiveClient)
        async throws
    {
        let context = Comment(rawValue: tenant.name)
        for path in ["/ns/\(tenant.name)/auth/keys", "/auth/keys"] {
            let verified = try await LiveRelyingPartyTests.verify(
                token, jwks: try await client.get(path).text, audience: tenant.clientId)
            #expect(verified.subject.value == tenant.sub(user), context)
            let skew = verified.issuedAt.value.timeIntervalSinceNow - Double(tenant.offset)
            #expect(abs(skew) < 250, "\(context): iat \(verified.issuedAt.value), skew \(skew)")
        }
        let header = try #require(token.split(separator: ".").first.flatMap { Data(base64URLEncoded: String($0)) })
        let kidSigned = (try JSONSerialization.jsonObject(with: header) as? [String: Any])?["kid"] as? String
        #expect(kidSigned == kid, context)
    }

    /// What holds once every namespace is done: each publishes its own rotated key and no other's,
    /// `/auth/keys` publishes them all, and the default namespace saw none of it.
    static func checkAcross(_ outcomes: [Outcome], on client: LiveClient, inboxes: NamespaceInboxes) async throws {
        let rotated = Set(outcomes.map(\.rotatedKid))
        #expect(rotated.count == count)
        let everywhere = kids(try await client.get("/auth/keys").json)
        #expect(rotated.isSubset(of: everywhere))
        for outcome in outcomes {
            let own = kids(try await client.get("/ns/\(outcome.tenant.name)/auth/keys").json)
            #expect(own.intersection(rotated) == [outcome.rotatedKid], "\(outcome.tenant.name): \(own)")
            #expect((await inboxes.payloads[outcome.tenant.name] ?? []).count == 1, "\(outcome.tenant.name)")
        }
        #expect(await inboxes.payloads.count == count)

        let listed = try await client.get("/__admin/namespaces").json["namespaces"] as? [[String: Any]] ?? []
        #expect(listed.count == count + 1)  // and the default namespace
        for entry in listed {
            let name = entry["name"] as? String ?? ""
            let tenant = outcomes.first { $0.tenant.name == name }?.tenant
            #expect(tenant != nil || name == NamespaceName.default, "\(entry)")
            #expect(entry["clients"] as? [String] == (tenant?.claims == true ? [tenant!.clientId] : []), "\(entry)")
        }

        // The default namespace: untouched scenario, clock, faults, outbox; its journal holds only
        // the unprefixed `/auth/keys` reads (one per id_token and notification verified, and one here).
        #expect(try await client.get("/__admin/scenario").json["name"] as? String == "default")
        #expect(try await client.get("/__admin/clock").json["offsetSeconds"] as? Double == 0)
        #expect((try await client.get("/__admin/faults").json["faults"] as? [Any])?.isEmpty == true)
        #expect(try await client.notifications().isEmpty)
        let journal = try await client.get("/__admin/journal?limit=1000").json["entries"] as? [[String: Any]] ?? []
        #expect(journal.allSatisfy { $0["namespace"] as? String == "default" && $0["endpoint"] as? String == "keys" })
        #expect(journal.count == 3 * count + 1, "\(journal.count)")  // and the read of `everywhere` above
        let consents = try await client.get("/__admin/consents").json["consents"] as? [Any] ?? []
        #expect(consents.isEmpty, "\(consents)")
    }

    /// The `kid`s of a JWKS.
    static func kids(_ jwks: [String: Any]) -> Set<String> {
        Set((jwks["keys"] as? [[String: Any]] ?? []).compactMap { $0["kid"] as? String })
    }
}
