import Foundation
import Hummingbird
import HummingbirdTesting
import JWTKit
import Testing

@testable import AppleIDMock

/// A live server on a free port, used the way a relying party uses Apple: the whole web flow, with
/// every id_token verified by jwt-kit's `AppleIdentityToken` against the keys fetched from
/// `/auth/keys`, and then by an independent Python relying party (Authlib) driven by discovery.
@Suite("Live relying party", .tags(.live))
struct LiveRelyingPartyTests {
    /// Verifies an id_token as a Swift backend would: signature by `kid` from the fetched JWKS,
    /// issuer, expiry (real time) and audience.
    static func verify(_ token: String, jwks: String, audience: String) async throws -> AppleIdentityToken {
        let keys = try await JWTKeyCollection().add(jwksJSON: jwks)
        return try await keys.verify(token, as: AppleIdentityToken.self, expectedAudience: audience)
    }

    @Test("authorize → form_post → token → refresh → revoke → refresh fails → first authorization again")
    func webFlow() async throws {
        let app = try await buildApplication(configuration: Fixture.configuration())
        let secret = try await Fixture.secret(now: Date())
        try await app.test(.live) { client in
            let jwks = try await client.execute(uri: "/auth/keys", method: .get).text
            let nonce = "n-\(UUID().uuidString)"
            let fields = try await client.signIn("sam", nonce: nonce)
            #expect(fields["state"] == "state-xyz")
            let user = try #require(fields["user"])
            let webToken = try await Self.verify(
                try #require(fields["id_token"]), jwks: jwks, audience: Fixture.webClient)
            #expect(webToken.nonce == nonce)
            #expect(user.contains(webToken.email ?? "missing"))

            let tokens = try await client.exchange(code: try #require(fields["code"]), secret: secret).json
            let idToken = try await Self.verify(
                try #require(tokens["id_token"] as? String), jwks: jwks, audience: Fixture.webClient)
            #expect(idToken.subject.value == IdentifierDerivation.subject(userKey: "sam", teamId: Fixture.teamId))
            #expect(idToken.isPrivateEmail?.value == true && idToken.emailVerified?.value == true)
            #expect(idToken.nonce == nonce && idToken.nonceSupported?.value == true)
            #expect(idToken.expires.value.timeIntervalSince(idToken.issuedAt.value) == 86_400)
            await #expect(throws: (any Error).self) {
                _ = try await Self.verify(tokens["id_token"] as? String ?? "", jwks: jwks, audience: Fixture.appClient)
            }

            let refreshToken = try #require(tokens["refresh_token"] as? String)
            let refreshed = try await client.refresh(refreshToken, secret: secret).json
            #expect(refreshed["refresh_token"] == nil)
            _ = try await Self.verify(
                try #require(refreshed["id_token"] as? String), jwks: jwks, audience: Fixture.webClient)

            let revoke = try await client.postForm(
                "/auth/revoke", [("client_id", Fixture.webClient), ("client_secret", secret), ("token", refreshToken)])
            #expect(revoke.status == .ok)
            #expect(try await client.refresh(refreshToken, secret: secret).json["error"] as? String == "invalid_grant")
            #expect(try await client.signIn("sam", nonce: nonce)["user"] != nil)
        }
    }

    @Test(
        "an independent Python relying party (Authlib) completes the flow", .enabled(if: PythonRelyingParty.shouldRun))
    func pythonRelyingParty() async throws {
        #expect(
            PythonRelyingParty.isAvailable,
            "Authlib is not installed: pip install -r Tests/relying-party/requirements.txt")
        let app = try await buildApplication(configuration: Fixture.configuration())
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let (status, output) = try await PythonRelyingParty.run(baseURL: "http://127.0.0.1:\(port)")
            #expect(status == 0, "relying party output:\n\(output)")
            #expect(output.contains(" passed, 0 failed"))
        }
    }
}

/// Runs `Tests/relying-party/relying_party.py`, an Authlib client, against a live server.
enum PythonRelyingParty {
    static let script = Fixture.root + "/Tests/relying-party/relying_party.py"

    /// CI sets `APPLE_ID_MOCK_REQUIRE_PYTHON_RP=1` so a missing Authlib fails instead of skipping.
    static var shouldRun: Bool {
        isAvailable || ProcessInfo.processInfo.environment["APPLE_ID_MOCK_REQUIRE_PYTHON_RP"] == "1"
    }

    static let isAvailable = PythonScript.canImport(["authlib", "requests"])

    /// Runs the script and returns its exit status and combined output.
    static func run(baseURL: String) async throws -> (Int32, String) {
        try await PythonScript.run([script, baseURL])
    }
}
