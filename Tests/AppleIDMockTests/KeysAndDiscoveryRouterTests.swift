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

    @Test("the discovery document's fields come in Apple's order (§5), compact")
    func discoveryOrder() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let text = try await client.execute(uri: "/.well-known/openid-configuration", method: .get).text
            let order = [
                "issuer", "authorization_endpoint", "token_endpoint", "revocation_endpoint", "jwks_uri",
                "response_types_supported", "response_modes_supported", "subject_types_supported",
                "id_token_signing_alg_values_supported", "scopes_supported", "token_endpoint_auth_methods_supported",
                "claims_supported",
            ]
            let positions = order.map { text.range(of: "\"\($0)\":")?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil })
            #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "\(text)")
            #expect(text.hasPrefix(#"{"issuer":"https://appleid.apple.com","authorization_endpoint":"#))
        }
    }

    @Test("Apple's answers carry Server: Apple; the mock's own (/health, the control plane) do not")
    func serverHeader() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            for uri in ["/auth/keys", "/.well-known/openid-configuration"] {
                #expect(try await client.execute(uri: uri, method: .get).headers[.server] == "Apple", "\(uri)")
            }
            let token = try await client.postForm("/auth/token", [("grant_type", "password")])
            #expect(token.status == .badRequest && token.headers[.server] == "Apple")
            let revoke = try await client.postForm("/auth/revoke", [])
            #expect(revoke.headers[.server] == "Apple")
            let authorize = try await client.authorize([("client_id", "nobody")])
            #expect(authorize.headers[.server] == "Apple")
            let fault = try await client.postJSON(
                "/__admin/faults",
                #"{"endpoint":"token","status":503,"body":{"error":"temporarily_unavailable"},"times":1}"#)
            #expect(fault.status == .created || fault.status == .ok)
            let faulted = try await client.postForm("/auth/token", [("grant_type", "refresh_token")])
            #expect(
                faulted.status == .serviceUnavailable && faulted.headers[.server] == "Apple",
                "a fault rule's answer too")
            #expect(try await client.execute(uri: "/health", method: .get).headers[.server] == nil)
            #expect(try await client.execute(uri: "/__admin/scenario", method: .get).headers[.server] == nil)
        }
    }

    @Test("HEAD on the keys, discovery and /health answers as GET without a body")
    func head() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            for uri in ["/auth/keys", "/.well-known/openid-configuration", "/health"] {
                let get = try await client.execute(uri: uri, method: .get)
                let head = try await client.execute(uri: uri, method: .head)
                #expect(head.status == .ok, "\(uri)")
                #expect(head.body.readableBytes == 0, "\(uri)")
                #expect(head.headers[.contentType] == get.headers[.contentType], "\(uri)")
                #expect(head.headers[.cacheControl] == "no-store", "\(uri)")
                #expect(head.headers[.contentLength] == String(get.body.readableBytes), "\(uri)")
                #expect(head.headers[.server] == get.headers[.server], "\(uri)")
            }
        }
    }
}
