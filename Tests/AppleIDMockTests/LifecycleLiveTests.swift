import Foundation
import Hummingbird
import HummingbirdTesting
import JWTKit
import Testing

@testable import AppleIDMock

/// Native sign-in, credential states and lifecycle events end to end: a live mock delivers signed
/// notifications to a live receiver, which verifies each JWS against `/auth/keys`.
@Suite("Native sign-in and lifecycle notifications", .tags(.live))
struct LifecycleLiveTests {
    /// A notification's claims as a backend decodes them.
    struct NotificationPayload: JWTPayload {
        var iss: IssuerClaim
        var aud: AudienceClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim
        var jti: String
        var events: String

        func verify(using algorithm: some JWTAlgorithm) async throws {
            guard iss.value == "https://appleid.apple.com" else {
                throw JWTError.claimVerificationFailure(failedClaim: iss, reason: "issuer")
            }
            try exp.verifyNotExpired()
        }
    }

    /// Verifies a notification JWS with the published keys and returns its claims and decoded `events`.
    static func verify(_ jws: String, jwks: String) async throws -> (NotificationPayload, [String: Any]) {
        let keys = try await JWTKeyCollection().add(jwksJSON: jwks)
        let payload = try await keys.verify(jws, as: NotificationPayload.self)
        let events = try JSONSerialization.jsonObject(with: Data(payload.events.utf8)) as? [String: Any] ?? [:]
        return (payload, events)
    }

    /// The default scenario with the example group's notification URL pointed at `url`, and fast retries
    /// (or the `settings` given, as JSON).
    static func scenario(
        notificationUrl url: String, events: String = "[]",
        settings: String = #"{"notificationRetryInitialMilliseconds": 20, "notificationRetryMaxMilliseconds": 100}"#
    ) throws -> String {
        var object =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: Fixture.scenariosDirectory + "/default.json")))
            as! [String: Any]
        var groups = object["appGroups"] as! [[String: Any]]
        groups[0]["notificationUrl"] = url
        object["appGroups"] = groups
        object["settings"] = try JSONSerialization.jsonObject(with: Data(settings.utf8))
        object["events"] = try JSONSerialization.jsonObject(with: Data(events.utf8))
        return String(data: try JSONSerialization.data(withJSONObject: object), encoding: .utf8)!
    }

    static func nativeAuthorize(_ client: some TestClientProtocol, user: String, scopes: String = #"["name","email"]"#)
        async throws -> TestResponse
    {
        try await client.postJSON(
            "/__admin/native/authorize",
            #"{"clientId":"com.example.app","user":"\#(user)","scopes":\#(scopes),"nonce":"c2hhMjU2LW5vbmNl","state":"st"}"#
        )
    }

    static func credentialState(_ client: some TestClientProtocol, _ sub: String) async throws -> String? {
        try await client.execute(
            uri: "/__admin/native/credential-state?clientId=com.example.app&userId=\(sub)", method: .get
        )
        .json["state"] as? String
    }

    @Test("native sign-in, relay toggles, revocation and deletion, each notified and verified")
    func lifecycle() async throws {
        let inbox = NotificationInbox(failFirst: 2)
        try await inbox.application().test(.live) { receiver in
            let url = "http://127.0.0.1:\(try #require(receiver.port))/notify"
            let app = try await buildApplication(configuration: Fixture.configuration())
            try await app.test(.live) { client in
                #expect(
                    try await client.postJSON(
                        "/__admin/scenarios?name=live&activate=true", try Self.scenario(notificationUrl: url)
                    ).status == .ok)
                let jwks = try await client.execute(uri: "/auth/keys", method: .get).text
                let secret = try await Fixture.secret(Fixture.appClient, now: Date())

                // 1. Native sign-in: what ASAuthorizationAppleIDCredential holds.
                let first = try await Self.nativeAuthorize(client, user: "sam").json
                let sub = try #require(first["user"] as? String)
                #expect(sub == IdentifierDerivation.subject(userKey: "sam", teamId: Fixture.teamId))
                #expect(
                    first["email"] as? String == IdentifierDerivation.relayEmail(userKey: "sam", teamId: Fixture.teamId)
                )
                #expect((first["fullName"] as? [String: String])?["givenName"] == "Sam")
                #expect(first["realUserStatus"] as? Int == 2 && first["state"] as? String == "st")
                let token = try await LiveRelyingPartyTests.verify(
                    try #require(first["identityToken"] as? String), jwks: jwks, audience: Fixture.appClient)
                #expect(token.nonce == "c2hhMjU2LW5vbmNl" && token.realUserStatus == .likelyReal)
                let code = try #require(first["authorizationCode"] as? String)
                #expect(
                    Fixture.claims(of: first["identityToken"] as? String ?? "")["c_hash"] as? String
                        == IdentityTokenClaims.halfHash(code))

                // The app's code is exchanged with the bundle id and no redirect_uri.
                let tokens = try await client.exchange(
                    code: code, clientId: Fixture.appClient, redirect: nil, secret: secret
                ).json
                let refresh = try #require(tokens["refresh_token"] as? String)
                let second = try await Self.nativeAuthorize(client, user: "sam").json
                #expect(second["email"] is NSNull && second["fullName"] is NSNull)
                #expect(try await Self.credentialState(client, sub) == "authorized")

                // 2. Relay forwarding off: notified with the relay address; nothing else changes.
                let disabled = try await client.postJSON(
                    "/__admin/events", #"{"type":"email-disabled","user":"sam","appGroup":"com.example.app"}"#)
                #expect(disabled.status == .ok)
                let (claims, event) = try await Self.verify(try #require(await inbox.waitFor(1).first), jwks: jwks)
                #expect(claims.aud.value == ["com.example.app"])
                #expect(claims.jti.count == 22 && claims.exp.value.timeIntervalSince(claims.iat.value) == 86_400)
                #expect(event["type"] as? String == "email-disabled" && event["sub"] as? String == sub)
                #expect(
                    event["email"] as? String == IdentifierDerivation.relayEmail(userKey: "sam", teamId: Fixture.teamId)
                )
                #expect(event["is_private_email"] as? String == "true")
                #expect((event["event_time"] as? Int ?? 0) > 1_000_000_000_000)  // milliseconds
                #expect(await inbox.contentTypes.first == "application/json")
                #expect(try await client.refresh(refresh, clientId: Fixture.appClient, secret: secret).status == .ok)
                let consents =
                    try await client.execute(uri: "/__admin/consents", method: .get).json["consents"]
                    as? [[String: Any]]
                #expect(consents?.first { $0["userKey"] as? String == "sam" }?["relayForwarding"] as? Bool == false)
                let listed = try await client.execute(uri: "/__admin/notifications", method: .get).json
                let record = try #require((listed["notifications"] as? [[String: Any]])?.first)
                #expect(record["status"] as? String == "delivered")
                #expect((record["attempts"] as? [Any])?.count == 3)  // the receiver failed twice first

                // Relay toggles do not apply to a user who shares a real email.
                _ = try await Self.nativeAuthorize(client, user: "maria")
                let notApplicable = try await client.postJSON(
                    "/__admin/events", #"{"type":"email-disabled","user":"maria","appGroup":"example"}"#)
                #expect(notApplicable.status == .conflict)
                #expect((notApplicable.json["message"] as? String)?.contains("shares a real email") == true)

                // 3. Consent revoked: refresh fails, state is revoked, the next sign-in is a first one.
                #expect(
                    try await client.postJSON(
                        "/__admin/events", #"{"type":"consent-revoked","user":"sam","appGroup":"example"}"#
                    ).status == .ok)
                let revokedEvent = try await Self.verify(try #require(await inbox.waitFor(2).last), jwks: jwks).1
                #expect(revokedEvent["type"] as? String == "consent-revoked" && revokedEvent["email"] == nil)
                #expect(
                    try await client.refresh(refresh, clientId: Fixture.appClient, secret: secret).json["error"]
                        as? String == "invalid_grant")
                #expect(try await Self.credentialState(client, sub) == "revoked")
                #expect(try await Self.nativeAuthorize(client, user: "sam").json["email"] is String)
                #expect(try await Self.credentialState(client, sub) == "authorized")

                // 4. Account deleted: every token dies, state revoked, no more sign-ins.
                #expect(
                    try await client.postJSON("/__admin/events", #"{"type":"account-delete","user":"sam"}"#).status
                        == .ok)
                let deleted = try await Self.verify(try #require(await inbox.waitFor(3).last), jwks: jwks).1
                #expect(deleted["type"] as? String == "account-delete" && deleted["sub"] as? String == sub)
                #expect(try await Self.credentialState(client, sub) == "revoked")
                #expect(try await Self.nativeAuthorize(client, user: "sam").status == .conflict)
                #expect(try await client.signIn("sam")["code"] == nil)

                // 5. Redelivery sends the same notification again.
                let id = try #require(record["id"] as? String)
                #expect(
                    try await client.execute(uri: "/__admin/notifications/\(id)/redeliver", method: .post).status == .ok
                )
                #expect(await inbox.waitFor(4).last == (await inbox.payloads.first))
            }
        }
    }

    @Test("scheduled events fire when the mock's clock reaches them")
    func scheduledEvents() async throws {
        let inbox = NotificationInbox()
        try await inbox.application().test(.live) { receiver in
            let url = "http://127.0.0.1:\(try #require(receiver.port))/notify"
            let at = Date().addingTimeInterval(3_600).ISO8601Format()
            let events =
                #"[{"type":"account-delete","user":"robin"},{"type":"consent-revoked","user":"maria","appGroup":"example","at":"\#(at)"}]"#
            let app = try await buildApplication(configuration: Fixture.configuration())
            try await app.test(.live) { client in
                #expect(
                    try await client.postJSON(
                        "/__admin/scenarios?name=timed&activate=true",
                        try Self.scenario(notificationUrl: url, events: events)
                    ).status == .ok)
                _ = try await Self.nativeAuthorize(client, user: "maria")
                let log = try await client.execute(uri: "/__admin/events", method: .get).json
                let entries = try #require(log["log"] as? [[String: Any]])
                #expect(
                    entries.first?["type"] as? String == "account-delete"
                        && entries.first?["outcome"] as? String == "applied")
                #expect((log["upcoming"] as? [Any])?.count == 1)
                let sub = IdentifierDerivation.subject(userKey: "maria", teamId: Fixture.teamId)
                #expect(try await Self.credentialState(client, sub) == "authorized")
                _ = try await client.postJSON("/__admin/clock", #"{"advanceSeconds": 3601}"#)
                #expect(try await Self.credentialState(client, sub) == "revoked")
                let event = try await Self.verify(
                    try #require(await inbox.waitFor(1).first),
                    jwks: try await client.execute(uri: "/auth/keys", method: .get).text
                ).1
                #expect(event["type"] as? String == "consent-revoked" && event["sub"] as? String == sub)
            }
        }
    }

    @Test("native and lifecycle calls refuse unknown or unfitting input with a clear 4xx")
    func refusals() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let unknownUser = try await client.postJSON(
                "/__admin/native/authorize", #"{"clientId":"com.example.app","user":"nobody"}"#)
            #expect(unknownUser.status == .notFound)
            let unknownClient = try await client.postJSON(
                "/__admin/native/authorize", #"{"clientId":"com.nope","user":"sam"}"#)
            #expect(unknownClient.status == .notFound)
            let webClient = try await client.postJSON(
                "/__admin/native/authorize", #"{"clientId":"com.example.web","user":"sam"}"#)
            #expect(webClient.status == .conflict)
            #expect((webClient.json["message"] as? String)?.contains("Services ID") == true)
            let badScope = try await client.postJSON(
                "/__admin/native/authorize", #"{"clientId":"com.example.app","user":"sam","scopes":["profile"]}"#)
            #expect((badScope.json["problems"] as? [[String: String]])?.first?["path"] == "$.scopes[0]")
            let neverAuthorized = try await client.postJSON(
                "/__admin/events", #"{"type":"consent-revoked","user":"alex","appGroup":"example"}"#)
            #expect(neverAuthorized.status == .conflict)
            let badType = try await client.postJSON("/__admin/events", #"{"type":"account-gone","user":"alex"}"#)
            #expect(badType.status == .badRequest)
            let noGroup = try await client.postJSON("/__admin/events", #"{"type":"email-enabled","user":"sam"}"#)
            #expect(noGroup.status == .badRequest)
            let state = try await client.execute(
                uri: "/__admin/native/credential-state?clientId=com.example.app&userId=000000.x.0000", method: .get)
            #expect(state.json["state"] as? String == "notFound")
            #expect(
                try await client.execute(uri: "/__admin/notifications/nope/redeliver", method: .post).status
                    == .notFound)
        }
    }
}
