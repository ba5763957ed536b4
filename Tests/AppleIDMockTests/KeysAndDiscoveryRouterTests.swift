import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// `/auth/keys`, `/.well-known/openid-configuration` and `/health`.
@Suite("Keys and discovery")
struct KeysAndDiscoveryRouterTests {
    @Test("the JWKS publishes every bundled RS256 key with Apple's fields")
    func jwks() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let response = try await client.execute(uri: "/auth/keys", method: .get)
            #expect(response.status == .ok)
            let keys = try #require(response.json["keys"] as? [[String: String]])
            #expect(keys.count >= 2)
            for key in keys {
                #expect(Set(key.keys) == ["kty", "kid", "use", "alg", "n", "e"])
                #expect(key["kty"] == "RSA" && key["use"] == "sig" && key["alg"] == "RS256" && key["e"] == "AQAB")
                #expect((key["n"]?.count ?? 0) >= 342)  // 2048-bit modulus, base64url
            }
            #expect(response.headers[.cacheControl] == "no-store")
        }
    }

    @Test("the discovery document is Apple's, with endpoints on this server")
    func discovery() async throws {
        var configuration = Fixture.configuration()
        configuration.publicBaseURL = "https://mock.example.test/"
        let app = try await buildApplication(configuration: configuration, clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let document = try await client.execute(uri: "/.well-known/openid-configuration", method: .get).json
            #expect(document["issuer"] as? String == "https://appleid.apple.com")
            #expect(document["authorization_endpoint"] as? String == "https://mock.example.test/auth/authorize")
            #expect(document["token_endpoint"] as? String == "https://mock.example.test/auth/token")
            #expect(document["revocation_endpoint"] as? String == "https://mock.example.test/auth/revoke")
            #expect(document["jwks_uri"] as? String == "https://mock.example.test/auth/keys")
            #expect(document["response_types_supported"] as? [String] == ["code"])
            #expect(document["response_modes_supported"] as? [String] == ["query", "fragment", "form_post"])
            #expect(document["subject_types_supported"] as? [String] == ["pairwise"])
            #expect(document["id_token_signing_alg_values_supported"] as? [String] == ["RS256"])
            #expect(document["scopes_supported"] as? [String] == ["openid", "email", "name"])
            #expect(document["token_endpoint_auth_methods_supported"] as? [String] == ["client_secret_post"])
            #expect((document["claims_supported"] as? [String])?.contains("real_user_status") == true)
            #expect(document["userinfo_endpoint"] == nil)
            #expect(document["grant_types_supported"] == nil)
            #expect(document.count == 12)
        }
    }

    @Test("without a configured base URL, each way the server is reached gets its own endpoints, every time")
    func discoveryPerBaseURL() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            for _ in 0..<2 {
                for scheme in ["http", "https"] {
                    let document = try await client.execute(
                        uri: "/.well-known/openid-configuration", method: .get,
                        headers: [HTTPField.Name("X-Forwarded-Proto")!: scheme]
                    ).json
                    let endpoint = try #require(document["token_endpoint"] as? String)
                    #expect(endpoint.hasPrefix("\(scheme)://") && endpoint.hasSuffix("/auth/token"))
                    #expect(document["issuer"] as? String == "https://appleid.apple.com")
                }
            }
        }
    }

    @Test("health answers")
    func health() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(response.status == .ok)
            #expect(response.json["status"] as? String == "ok")
        }
    }
}
