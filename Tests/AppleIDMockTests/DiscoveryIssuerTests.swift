import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// The `discoveryIssuer` setting: Apple's discovery drift of June 2025 (discovery names
/// `https://account.apple.com`, tokens keep `https://appleid.apple.com`).
@Suite("Discovery issuer drift")
struct DiscoveryIssuerTests {
    @Test("off by default; on, discovery names account.apple.com while tokens keep appleid.apple.com")
    func drift() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let before = try await client.execute(uri: "/.well-known/openid-configuration", method: .get)
            #expect(before.json["issuer"] as? String == "https://appleid.apple.com")
            #expect(before.text.hasPrefix(#"{"issuer":"https://appleid.apple.com","authorization_endpoint""#))

            let patched = try await client.postJSON(
                "/__admin/settings", #"{"discoveryIssuer":"https://account.apple.com"}"#, method: .patch)
            #expect(patched.status == .ok)
            #expect(patched.json["discoveryIssuer"] as? String == "https://account.apple.com")

            let drifted = try await client.execute(uri: "/.well-known/openid-configuration", method: .get)
            #expect(drifted.json["issuer"] as? String == "https://account.apple.com")
            // Only the issuer moved: the field order and the endpoints are Apple's.
            #expect(drifted.text.hasPrefix(#"{"issuer":"https://account.apple.com","authorization_endpoint""#))
            #expect((drifted.json["jwks_uri"] as? String)?.hasSuffix("/auth/keys") == true)
            let head = try await client.execute(uri: "/.well-known/openid-configuration", method: .head)
            #expect(head.status == .ok)

            let fields = try await client.signIn("maria")
            let idToken = try #require(fields["id_token"])
            #expect(Fixture.claims(of: idToken)["iss"] as? String == "https://appleid.apple.com")
            let code = try #require(fields["code"])
            let token = try await client.exchange(code: code, secret: try await Fixture.secret())
            let exchanged = try #require(token.json["id_token"] as? String)
            #expect(Fixture.claims(of: exchanged)["iss"] as? String == "https://appleid.apple.com")

            _ = try await client.postJSON(
                "/__admin/settings", #"{"discoveryIssuer":"https://appleid.apple.com"}"#, method: .patch)
            let after = try await client.execute(uri: "/.well-known/openid-configuration", method: .get)
            #expect(after.json["issuer"] as? String == "https://appleid.apple.com")
        }
    }

    @Test("a value that is neither issuer is refused with the field named")
    func refused() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let response = try await client.postJSON(
                "/__admin/settings", #"{"discoveryIssuer":"https://evil.example"}"#, method: .patch)
            #expect(response.status == .badRequest)
            #expect(response.text.contains("discoveryIssuer"))
            let settings = try await client.execute(uri: "/__admin/settings", method: .get)
            #expect(settings.json["discoveryIssuer"] as? String == "https://appleid.apple.com")
        }
    }

    @Test("a scenario's settings may turn it on")
    func scenarioSetting() throws {
        var reader = JSONReader()
        let value = try JSONValue.parse(Data(#"{"discoveryIssuer":"https://account.apple.com"}"#.utf8))
        let settings = MockSettings().applying(value, at: .root, reader: &reader)
        #expect(reader.problems.isEmpty)
        #expect(settings.discoveryIssuer == .account)
        #expect(MockSettings().discoveryIssuer == .appleid)
    }
}
