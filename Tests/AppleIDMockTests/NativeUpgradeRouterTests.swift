import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// The account upgrade credential (`"flow": "upgrade"`), native codes exchanged with an empty
/// `redirect_uri`, and the relay domain setting, over the router.
@Suite("Native upgrade, empty redirect_uri, relay domain")
struct NativeUpgradeRouterTests {
    /// A backend check that trusts the suffix instead of `is_private_email`: the bug under test.
    private static func suffixCheck(_ email: String) -> Bool { email.hasSuffix("@privaterelay.appleid.com") }

    private static func native(_ client: some TestClientProtocol, _ body: String) async throws -> TestResponse {
        try await client.postJSON("/__admin/native/authorize", body)
    }

    @Test("an upgrade hands state and nonce back, no scopes, no email or name; its code is exchanged as any native one")
    func upgrade() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret(Fixture.appClient)
        try await app.test(.router) { client in
            let answer = try await Self.native(
                client,
                #"{"flow":"upgrade","clientId":"com.example.app","user":"maria","state":"st-1","nonce":"n-up"}"#)
            #expect(answer.status == .ok)
            let credential = answer.json
            #expect(credential["state"] as? String == "st-1")
            #expect((credential["authorizedScopes"] as? [Any])?.isEmpty == true)
            #expect(credential["email"] is NSNull && credential["fullName"] is NSNull)
            let identity = Fixture.claims(of: credential["identityToken"] as? String ?? "")
            #expect(identity["nonce"] as? String == "n-up" && identity["email"] == nil)
            #expect(identity["is_private_email"] == nil && identity["email_verified"] == nil)
            #expect(identity["sub"] as? String == credential["user"] as? String)

            let tokens = try await client.exchange(
                code: credential["authorizationCode"] as? String ?? "", clientId: Fixture.appClient, redirect: nil,
                secret: secret)
            #expect(tokens.status == .ok)
            let claims = Fixture.claims(of: tokens.json["id_token"] as? String ?? "")
            #expect(claims["sub"] as? String == credential["user"] as? String)
            #expect(claims["nonce"] as? String == "n-up" && claims["email"] == nil)
            #expect(tokens.json["refresh_token"] is String)
        }
    }

    @Test("an upgrade refuses scopes and hideEmail, naming the field; an unknown flow is refused")
    func upgradeRefusals() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let scoped = try await Self.native(
                client, #"{"flow":"upgrade","clientId":"com.example.app","user":"maria","scopes":["email"]}"#)
            #expect(scoped.status == .badRequest)
            #expect(scoped.text.contains("scopes") && scoped.text.contains("no scopes"))
            let hidden = try await Self.native(
                client, #"{"flow":"upgrade","clientId":"com.example.app","user":"sam","hideEmail":true}"#)
            #expect(hidden.status == .badRequest && hidden.text.contains("hideEmail"))
            let unknown = try await Self.native(
                client, #"{"flow":"migrate","clientId":"com.example.app","user":"sam"}"#)
            #expect(unknown.status == .badRequest && unknown.text.contains("flow"))
            let web = try await Self.native(client, #"{"flow":"upgrade","clientId":"com.example.web","user":"sam"}"#)
            #expect(web.status == .conflict)
        }
    }

    @Test(
        "after an earlier sign-in that shared email, the upgrade's credential still has none; the token follows the consent"
    )
    func upgradeAfterConsent() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            _ = try await Self.native(client, #"{"clientId":"com.example.app","user":"maria","scopes":["email"]}"#)
            let credential = try await Self.native(
                client, #"{"flow":"upgrade","clientId":"com.example.app","user":"maria"}"#
            ).json
            #expect(credential["email"] is NSNull)
            let identity = Fixture.claims(of: credential["identityToken"] as? String ?? "")
            #expect(identity["email"] as? String == "maria.ruiz@example.org")
        }
    }

    @Test("a native code with redirect_uri present but empty is invalid_grant, unless nativeEmptyRedirectUri is accept")
    func emptyRedirect() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret(Fixture.appClient)
        try await app.test(.router) { client in
            func code() async throws -> String {
                try await Self.native(client, #"{"clientId":"com.example.app","user":"maria"}"#)
                    .json["authorizationCode"] as? String ?? ""
            }
            let refused = try await client.exchange(
                code: try await code(), clientId: Fixture.appClient, redirect: "", secret: secret)
            #expect(refused.status == .badRequest)
            #expect(refused.json["error"] as? String == "invalid_grant")
            let other = try await client.exchange(
                code: try await code(), clientId: Fixture.appClient, redirect: "https://example.com/cb",
                secret: secret)
            #expect(other.json["error"] as? String == "invalid_grant")

            let patch = try await client.postJSON(
                "/__admin/settings", #"{"nativeEmptyRedirectUri":"accept"}"#, method: .patch)
            #expect(patch.status == .ok)
            let accepted = try await client.exchange(
                code: try await code(), clientId: Fixture.appClient, redirect: "", secret: secret)
            #expect(accepted.status == .ok)
            // A web code still needs its own return URL: an empty one is a missing one.
            let web = try await client.signIn("maria")
            let webEmpty = try await client.exchange(
                code: web["code"] ?? "", redirect: "", secret: try await Fixture.secret())
            #expect(webEmpty.json["error"] as? String == "invalid_request")
        }
    }

    @Test("the rule without HTTP: only an empty value on a code issued without a return URL is governed by the setting")
    func emptyRedirectRule() throws {
        let record = AuthorizationCodeRecord(
            code: "c", clientId: "com.example.app", appGroupId: "example", userKey: "maria", redirectUri: nil,
            nonce: nil, codeChallenge: nil, codeChallengeMethod: nil, issuedAt: Fixture.start,
            expiresAt: Fixture.start.addingTimeInterval(300), authTime: Fixture.start, consentGeneration: 1,
            redeemedAt: nil)
        let consent = Consent(
            userKey: "maria", appGroupId: "example", scopes: [], hidesEmail: false, status: .authorized, generation: 1,
            authorizedAt: Fixture.start)
        func redeem(_ redirect: String?, _ mode: MockSettings.NativeEmptyRedirectUri) throws(AppleError) {
            _ = try GrantRules.redeem(
                record, consent: consent, clientId: "com.example.app", redirectUri: redirect, codeVerifier: nil,
                pkce: .strict, emptyRedirectUri: mode, now: Fixture.start)
        }
        #expect(throws: Never.self) { try redeem(nil, .refuse) }
        #expect(throws: AppleError.self) { try redeem("", .refuse) }
        #expect(throws: Never.self) { try redeem("", .accept) }
        #expect(throws: AppleError.self) { try redeem("https://example.com/cb", .accept) }
    }

    @Test(
        "relayDomain private.icloud.com: new relay addresses use it, is_private_email stays true, and a suffix check is caught"
    )
    func relayDomain() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let before = try await Self.native(
                client, #"{"clientId":"com.example.app","user":"sam","scopes":["email"]}"#
            ).json
            let oldAddress = try #require(before["email"] as? String)
            #expect(Self.suffixCheck(oldAddress))

            let patch = try await client.postJSON(
                "/__admin/settings", #"{"relayDomain":"private.icloud.com"}"#, method: .patch)
            #expect(patch.status == .ok)
            let credential = try await Self.native(
                client, #"{"clientId":"com.example.app","user":"robin","scopes":["email"]}"#
            ).json
            let address = try #require(credential["email"] as? String)
            #expect(address.hasSuffix("@private.icloud.com"))
            let claims = Fixture.claims(of: credential["identityToken"] as? String ?? "")
            #expect(claims["email"] as? String == address && claims["is_private_email"] as? Bool == true)
            // The backend's suffix check calls a relay address a real one: the mock exposes it.
            #expect(!Self.suffixCheck(address), "the suffix check misses \(address), which the token marks private")

            // Both addresses still name their users (the control plane, and so the mail relay).
            let world = try Fixture.defaultWorld()
            #expect(world.relayOwner(of: oldAddress)?.user.key == "sam")
            #expect(world.relayOwner(of: address)?.user.key == "robin")
            let users = try await client.execute(uri: "/__admin/users", method: .get).text
            #expect(users.contains(address))
        }
    }
}
