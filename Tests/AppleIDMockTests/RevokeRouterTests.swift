import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// `/auth/revoke`: silent 200s, and revocation that ends the consent.
@Suite("Revoke endpoint")
struct RevokeRouterTests {
    /// Signs maria in and returns (access token, refresh token).
    static func tokens(_ client: some TestClientProtocol, secret: String) async throws -> (String, String) {
        let fields = try await client.signIn("maria")
        let body = try await client.exchange(code: fields["code"] ?? "", secret: secret).json
        return (body["access_token"] as? String ?? "", body["refresh_token"] as? String ?? "")
    }

    @Test("revoking a refresh token: 200 empty, refresh fails, the next authorization is first again")
    func revokeRefresh() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            let (_, refresh) = try await Self.tokens(client, secret: secret)
            let response = try await client.postForm(
                "/auth/revoke",
                [
                    ("client_id", Fixture.webClient), ("client_secret", secret), ("token", refresh),
                    ("token_type_hint", "refresh_token"),
                ])
            #expect(response.status == .ok)
            #expect(response.body.readableBytes == 0)
            let after = try await client.refresh(refresh, secret: secret)
            #expect(
                after.text
                    == #"{"error":"invalid_grant","error_description":"The token has expired or has been revoked."}"#)
            #expect(try await client.signIn("maria")["user"] != nil)
        }
    }

    @Test("a namespace's token revoked on the unprefixed URL: revoked in its namespace, the default's untouched")
    func revokeInNamespace() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            #expect(try await client.postJSON("/__admin/namespaces/qa", "{}", method: .put).status == .created)
            let (_, home) = try await Self.tokens(client, secret: secret)
            // Authorized in the namespace (the header); exchanged, revoked and refreshed with neither
            // prefix nor header: the code and the token carry their namespace.
            let response = try await client.authorize(
                [
                    ("client_id", Fixture.webClient), ("redirect_uri", Fixture.redirect), ("response_type", "code"),
                    ("login_hint", "maria"),
                ], headers: [HTTPField.Name("X-Apple-ID-Mock-Namespace")!: "qa"])
            let location = try #require(response.headers[.location])
            let code = try #require(Fixture.parameters(ofLocation: location, separator: "?")["code"])
            let refresh = try #require(
                try await client.exchange(code: code, secret: secret).json["refresh_token"] as? String)
            let revoked = try await client.postForm(
                "/auth/revoke", [("client_id", Fixture.webClient), ("client_secret", secret), ("token", refresh)])
            #expect(revoked.status == .ok, "\(revoked.text)")
            #expect(try await client.refresh(refresh, secret: secret).json["error"] as? String == "invalid_grant")
            #expect(try await client.refresh(home, secret: secret).status == .ok)
        }
    }

    @Test(
        "refresh_token= instead of token=: refused by default, or ignored, or accepted, as the setting says",
        arguments: [("refuse", 400, true), ("ignore", 200, true), ("accept", 200, false)])
    func misnamedTokenParameter(setting: String, status: Int, refreshStillWorks: Bool) async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            if setting != "refuse" {
                let patch = try await client.postJSON(
                    "/__admin/settings", #"{"revokeRefreshTokenParameter":"\#(setting)"}"#, method: .patch)
                #expect(patch.status == .ok)
            }
            #expect(
                try await client.execute(uri: "/__admin/settings", method: .get).json["revokeRefreshTokenParameter"]
                    as? String == setting)
            let (_, refresh) = try await Self.tokens(client, secret: secret)
            let response = try await client.postForm(
                "/auth/revoke",
                [("client_id", Fixture.webClient), ("client_secret", secret), ("refresh_token", refresh)])
            #expect(Int(response.status.code) == status)
            if status == 400 { #expect(response.text == #"{"error":"invalid_request"}"#) }
            #expect((try await client.refresh(refresh, secret: secret).status == .ok) == refreshStillWorks)
        }
    }

    @Test("revoking an access token, with parameters in the query, ends the consent too")
    func revokeAccessByQuery() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            let (access, refresh) = try await Self.tokens(client, secret: secret)
            let query = FormParameters.encode([
                ("client_id", Fixture.webClient), ("client_secret", secret), ("token", access),
            ])
            let response = try await client.execute(uri: "/auth/revoke?" + query, method: .post)
            #expect(response.status == .ok)
            #expect(try await client.refresh(refresh, secret: secret).json["error"] as? String == "invalid_grant")
        }
    }

    @Test("garbage tokens and other clients' tokens get 200 and revoke nothing")
    func silentSuccess() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        let appSecret = try await Fixture.secret(Fixture.appClient)
        try await app.test(.router) { client in
            let (_, refresh) = try await Self.tokens(client, secret: secret)
            let garbage = try await client.postForm(
                "/auth/revoke", [("client_id", Fixture.webClient), ("client_secret", secret), ("token", "garbage")])
            #expect(garbage.status == .ok)
            let otherClient = try await client.postForm(
                "/auth/revoke", [("client_id", Fixture.appClient), ("client_secret", appSecret), ("token", refresh)])
            #expect(otherClient.status == .ok)
            #expect(try await client.refresh(refresh, secret: secret).status == .ok)
        }
    }

    @Test("bad client authentication and missing tokens are refused in Apple's format")
    func refusals() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            #expect(try await client.postForm("/auth/revoke", []).text == #"{"error":"invalid_client"}"#)
            let bad = try await client.postForm(
                "/auth/revoke", [("client_id", Fixture.webClient), ("client_secret", "x"), ("token", "t")])
            #expect(bad.text == #"{"error":"invalid_client"}"#)
            let missing = try await client.postForm(
                "/auth/revoke", [("client_id", Fixture.webClient), ("client_secret", secret)])
            #expect(missing.text == #"{"error":"invalid_request"}"#)
            let badQuery = try await client.postForm(
                "/auth/revoke?token=%ZZ&token=x",
                [("client_id", Fixture.webClient), ("client_secret", secret), ("token", "t")])
            #expect(badQuery.status == .ok)
            let json = try await client.postJSON("/auth/revoke", #"{"token":"t"}"#)
            #expect(json.json["error"] as? String == "invalid_client")
        }
    }
}

/// The `notifyOnRevokeEndpoint` switch: `/auth/revoke` also produces `consent-revoked`.
@Suite("Revoke endpoint notifications")
struct RevokeNotificationTests {
    @Test("with notifyOnRevokeEndpoint, a revocation queues a consent-revoked notification; without, none")
    func notifies() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            let (_, refresh) = try await RevokeRouterTests.tokens(client, secret: secret)
            let revoke = [("client_id", Fixture.webClient), ("client_secret", secret), ("token", refresh)]
            _ = try await client.postForm("/auth/revoke", revoke)
            #expect(
                (try await client.execute(uri: "/__admin/notifications", method: .get).json["notifications"] as? [Any])?
                    .isEmpty == true)
            _ = try await client.postJSON("/__admin/settings", #"{"notifyOnRevokeEndpoint": true}"#, method: .patch)
            let (_, second) = try await RevokeRouterTests.tokens(client, secret: secret)
            _ = try await client.postForm(
                "/auth/revoke", [("client_id", Fixture.webClient), ("client_secret", secret), ("token", second)])
            let records = try #require(
                try await client.execute(uri: "/__admin/notifications", method: .get).json["notifications"]
                    as? [[String: Any]])
            #expect(records.count == 1)
            #expect(records.first?["type"] as? String == "consent-revoked")
            #expect(
                records.first?["sub"] as? String
                    == IdentifierDerivation.subject(userKey: "maria", teamId: Fixture.teamId))
        }
    }
}
