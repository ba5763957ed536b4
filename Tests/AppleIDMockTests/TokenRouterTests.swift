import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import JWTKit
import Testing

@testable import AppleIDMock

/// `/auth/token`: client secret checks, the code and refresh grants, and Apple's error bodies.
@Suite("Token endpoint")
struct TokenRouterTests {
    struct SecretClaims: JWTPayload {
        var iss = Fixture.teamId
        var iat: Int
        var exp: Int
        var aud = "https://appleid.apple.com"
        var sub = Fixture.webClient
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    static func pem(_ keyId: String) throws -> String {
        try String(
            contentsOfFile: ClientSecretFactory.privateKeyPath(keyId: keyId, keysDirectory: Fixture.keysDirectory),
            encoding: .utf8)
    }

    static func secret(
        _ edit: (inout SecretClaims) -> Void = { _ in }, keyId: String = "ABC123DEFG", headerKid: String? = nil
    )
        async throws -> String
    {
        let now = Int(Fixture.start.timeIntervalSince1970)
        var claims = SecretClaims(iat: now, exp: now + 3_600)
        edit(&claims)
        return try await ClientSecretFactory.sign(claims, pem: try pem(keyId), keyId: headerKid ?? keyId)
    }

    /// Replaces a JWT's header, keeping payload and signature.
    static func withHeader(_ jwt: String, _ header: String) -> String {
        let parts = jwt.split(separator: ".")
        return Data(header.utf8).base64URLEncoded + "." + parts[1] + "." + parts[2]
    }

    /// Re-encodes the ES256 signature as ASN.1 DER, which Apple refuses.
    static func withDERSignature(_ jwt: String) throws -> String {
        let parts = jwt.split(separator: ".")
        let raw = try #require(Data(base64URLEncoded: parts[2]))
        let der = try P256.Signing.ECDSASignature(rawRepresentation: raw).derRepresentation
        return parts[0] + "." + parts[1] + "." + der.base64URLEncoded
    }

    static func badSecrets() async throws -> [(String, String)] {
        let now = Int(Fixture.start.timeIntervalSince1970)
        let valid = try await secret()
        return [
            ("garbage", "not-a-jwt"),
            (
                "expired",
                try await secret {
                    $0.iat = now - 7_200
                    $0.exp = now - 1
                }
            ),
            (
                "iat in the future",
                try await secret {
                    $0.iat = now + 120
                    $0.exp = now + 3_600
                }
            ),
            ("lifetime over 15777000 s", try await secret { $0.exp = $0.iat + 15_777_001 }),
            ("wrong aud", try await secret { $0.aud = "https://appleid.apple.com/" }),
            ("sub in another case", try await secret { $0.sub = "COM.example.web" }),
            ("iss of another team", try await secret { $0.iss = "XYZ789KLMN" }),
            ("unknown kid", try await secret(headerKid: "ZZZZZZZZZZ")),
            ("key of another team", try await secret(keyId: "QRS456TUVW")),
            ("alg HS256", withHeader(valid, #"{"alg":"HS256","kid":"ABC123DEFG"}"#)),
            ("DER signature", try withDERSignature(valid)),
        ]
    }

    @Test("every client secret fault is a bare invalid_client (HTTP 400)")
    func clientSecretFaults() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let cases = try await Self.badSecrets()
        try await app.test(.router) { client in
            for (name, secret) in cases {
                let response = try await client.refresh("r-unknown", secret: secret)
                #expect(response.status == .badRequest, "\(name)")
                #expect(response.text == #"{"error":"invalid_client"}"#, "\(name)")
            }
            let withinLeeway = try await Self.secret { $0.iat += 30 }
            #expect(
                try await client.refresh("r-unknown", secret: withinLeeway).json["error"] as? String == "invalid_grant")
            let maximal = try await Self.secret { $0.exp = $0.iat + 15_777_000 }
            #expect(try await client.refresh("r-unknown", secret: maximal).json["error"] as? String == "invalid_grant")
        }
    }

    @Test("the code grant returns Apple's response and an id_token with at_hash, nonce and email claims")
    func codeGrant() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            let fields = try await client.signIn("sam", nonce: "raw-nonce")
            let response = try await client.exchange(code: fields["code"] ?? "", secret: secret)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json;charset=UTF-8")
            #expect(response.headers[.cacheControl] == "no-store")
            let body = response.json
            #expect(Set(body.keys) == ["access_token", "token_type", "expires_in", "refresh_token", "id_token"])
            #expect(body["token_type"] as? String == "Bearer" && body["expires_in"] as? Int == 3600)
            let access = try #require(body["access_token"] as? String)
            #expect(access.wholeMatch(of: /a[0-9a-f]{32}\.0\.[a-z]{4}\.[A-Za-z0-9_-]{22}/) != nil)
            #expect((body["refresh_token"] as? String)?.hasPrefix("r") == true)
            let token = try #require(body["id_token"] as? String)
            let claims = Fixture.claims(of: token)
            let now = Int(Fixture.start.timeIntervalSince1970)
            #expect(claims["iss"] as? String == "https://appleid.apple.com")
            #expect(claims["aud"] as? String == Fixture.webClient)
            #expect(claims["sub"] as? String == IdentifierDerivation.subject(userKey: "sam", teamId: Fixture.teamId))
            #expect(
                claims["iat"] as? Int == now && claims["exp"] as? Int == now + 86_400
                    && claims["auth_time"] as? Int == now)
            #expect(claims["at_hash"] as? String == IdentityTokenClaims.halfHash(access))
            #expect(claims["nonce"] as? String == "raw-nonce")
            #expect(
                claims["email"] as? String == IdentifierDerivation.relayEmail(userKey: "sam", teamId: Fixture.teamId))
            #expect(claims["email_verified"] as? Bool == true && claims["is_private_email"] as? Bool == true)
            #expect(claims["c_hash"] == nil)
        }
    }

    @Test("a real address omits is_private_email; the string style writes \"true\"")
    func claimStyles() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            let maria = try await client.signIn("maria")
            let claims = Fixture.claims(
                of: try await client.exchange(code: maria["code"] ?? "", secret: secret).json["id_token"] as? String
                    ?? "")
            #expect(claims["email"] as? String == "maria.ruiz@example.org")
            #expect(claims["is_private_email"] == nil)
            _ = try await client.postJSON(
                "/__admin/settings", #"{"booleanClaimStyle":"string","omitIsPrivateEmailWhenFalse":false}"#,
                method: .patch)
            let again = try await client.signIn("robin")
            let strings = Fixture.claims(
                of: try await client.exchange(code: again["code"] ?? "", secret: secret).json["id_token"] as? String
                    ?? "")
            #expect(strings["email_verified"] as? String == "true" && strings["is_private_email"] as? String == "true")
        }
    }

    @Test("the mixed claim style writes email_verified as a boolean and is_private_email as a string")
    func mixedClaimStyle() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            let patch = try await client.postJSON(
                "/__admin/settings", #"{"booleanClaimStyle":"mixed"}"#, method: .patch)
            #expect(patch.status == .ok && patch.json["booleanClaimStyle"] as? String == "mixed")
            let robin = try await client.signIn("robin")
            let token = try await client.exchange(code: robin["code"] ?? "", secret: secret).json["id_token"] as? String
            let payload = String(
                decoding: Fixture.base64URL(token?.split(separator: ".")[1] ?? "") ?? Data(), as: UTF8.self)
            #expect(payload.contains(#""email_verified":true"#), "\(payload)")
            #expect(payload.contains(#""is_private_email":"true""#), "\(payload)")
        }
    }

    @Test("managed accounts carry org_id and an unverified email")
    func managedAccount() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            let fields = try await client.signIn("casey")
            let claims = Fixture.claims(
                of: try await client.exchange(code: fields["code"] ?? "", secret: secret).json["id_token"] as? String
                    ?? "")
            #expect(claims["org_id"] as? String == "ORG0042SCHOOL")
            #expect(claims["email_verified"] as? Bool == false)
        }
    }

    @Test("code errors: expiry on the mock's clock, reuse, wrong client, wrong redirect")
    func codeErrors() async throws {
        let clock = MockClock.fixed(at: Fixture.start)
        let app = try await Fixture.application(clock: clock)
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            let expiring = try await client.signIn("maria")
            clock.advance(by: 301)
            let late = try await client.exchange(code: expiring["code"] ?? "", secret: secret)
            #expect(
                late.text
                    == #"{"error":"invalid_grant","error_description":"The code has expired or has been revoked."}"#)

            let fresh = try await client.signIn("maria")
            let wrongRedirect = try await client.exchange(
                code: fresh["code"] ?? "", redirect: "https://app.example.com/auth/apple/callback", secret: secret)
            #expect(
                wrongRedirect.json["error_description"] as? String
                    == "redirect_uri mismatch. The code was not issued to https://app.example.com/auth/apple/callback.")
            let otherClient = try await client.exchange(
                code: fresh["code"] ?? "", clientId: "com.otherstudio.web",
                secret: try await Fixture.secret("com.otherstudio.web", now: clock.now()))
            #expect(
                otherClient.json["error_description"] as? String
                    == "client_id mismatch. The code was not issued to com.otherstudio.web.")
            #expect(try await client.exchange(code: fresh["code"] ?? "", secret: secret).status == .ok)
            let reused = try await client.exchange(code: fresh["code"] ?? "", secret: secret)
            #expect(reused.text == #"{"error":"invalid_grant","error_description":"The code has already been used."}"#)
        }
    }

    @Test("a refresh token or code of another client gets Apple's client_id mismatch text (§2.4, §10)")
    func otherClientGrants() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            let fields = try await client.signIn("maria")
            let nativeCode = try await client.exchange(
                code: fields["code"] ?? "", clientId: Fixture.appClient, redirect: nil,
                secret: try await Fixture.secret(Fixture.appClient))
            #expect(
                nativeCode.text
                    == #"{"error":"invalid_grant","error_description":"client_id mismatch. The code was not issued to com.example.app."}"#
            )
            let tokens = try await client.exchange(code: fields["code"] ?? "", secret: secret).json
            let refreshToken = try #require(tokens["refresh_token"] as? String)
            for other in [Fixture.appClient, "com.otherstudio.web"] {
                let refused = try await client.refresh(
                    refreshToken, clientId: other, secret: try await Fixture.secret(other))
                #expect(
                    refused.text
                        == #"{"error":"invalid_grant","error_description":"client_id mismatch. The code was not issued to \#(other)."}"#
                )
            }
            #expect(try await client.refresh(refreshToken, secret: secret).status == .ok, "nothing was spent")
        }
    }

    @Test("PKCE over HTTP: a challenged code needs its verifier")
    func pkce() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        let challenge = Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncoded
        try await app.test(.router) { client in
            let fields = try await client.signIn(
                "maria", extra: [("code_challenge", challenge), ("code_challenge_method", "S256")])
            #expect(
                try await client.exchange(code: fields["code"] ?? "", secret: secret).text
                    == #"{"error":"invalid_grant"}"#)
            #expect(
                try await client.exchange(
                    code: fields["code"] ?? "", secret: secret, extra: [("code_verifier", verifier)]
                ).status == .ok)
        }
    }

    @Test("refresh returns no refresh_token and a sparse id_token; refresh id_tokens can be switched off")
    func refresh() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            let fields = try await client.signIn("maria")
            let tokens = try await client.exchange(code: fields["code"] ?? "", secret: secret).json
            let refreshToken = try #require(tokens["refresh_token"] as? String)
            let refreshed = try await client.refresh(refreshToken, secret: secret).json
            #expect(Set(refreshed.keys) == ["access_token", "token_type", "expires_in", "id_token"])
            let claims = Fixture.claims(of: refreshed["id_token"] as? String ?? "")
            #expect(Set(claims.keys) == ["iss", "aud", "exp", "iat", "sub", "at_hash", "auth_time"])
            #expect(
                claims["at_hash"] as? String == IdentityTokenClaims.halfHash(refreshed["access_token"] as? String ?? "")
            )
            _ = try await client.postJSON("/__admin/settings", #"{"refreshReturnsIdToken":false}"#, method: .patch)
            #expect(
                Set(try await client.refresh(refreshToken, secret: secret).json.keys) == [
                    "access_token", "token_type", "expires_in",
                ])
            let otherClient = try await client.refresh(
                refreshToken, clientId: "com.example.app", secret: try await Fixture.secret("com.example.app"))
            #expect(otherClient.json["error"] as? String == "invalid_grant")
        }
    }

    @Test(
        "malformed requests get Apple's error body, never a 500",
        arguments: [
            ("wrong content type", "application/json", #"{"grant_type":"refresh_token"}"#, "invalid_client"),
            (
                "missing grant_type", "application/x-www-form-urlencoded", "client_id=com.example.web",
                "unsupported_grant_type"
            ),
            (
                "misspelled grant_type", "application/x-www-form-urlencoded", "grand_type=authorization_code",
                "unsupported_grant_type"
            ),
            (
                "unknown grant_type", "application/x-www-form-urlencoded", "grant_type=password",
                "unsupported_grant_type"
            ),
            (
                "duplicate parameter", "application/x-www-form-urlencoded",
                "grant_type=refresh_token&grant_type=refresh_token", "invalid_request"
            ),
            ("bad percent-encoding", "application/x-www-form-urlencoded", "grant_type=%ZZ", "invalid_request"),
            (
                "no client", "application/x-www-form-urlencoded", "grant_type=refresh_token&refresh_token=r",
                "invalid_client"
            ),
            (
                "unknown client", "application/x-www-form-urlencoded",
                "grant_type=refresh_token&refresh_token=r&client_id=x&client_secret=y", "invalid_client"
            ),
            ("oversized body", "application/x-www-form-urlencoded", "OVERSIZED", "invalid_request"),
        ])
    func malformed(name: String, contentType: String, body: String, error: String) async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let body = body == "OVERSIZED" ? "grant_type=" + String(repeating: "a", count: 70_000) : body
        try await app.test(.router) { client in
            let response = try await client.execute(
                uri: "/auth/token", method: .post, headers: [.contentType: contentType], body: ByteBuffer(string: body))
            #expect(response.status == .badRequest, "\(name)")
            #expect(response.json["error"] as? String == error, "\(name)")
        }
    }

    @Test("grant parameters are checked before the secret; absurd secret times are refused, not a crash")
    func orderAndExtremes() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let huge = try await Self.secret { $0.exp = Int.max / 2 }
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            let noCode = try await client.postForm(
                "/auth/token",
                [("grant_type", "authorization_code"), ("client_id", Fixture.webClient), ("client_secret", "x")])
            #expect(noCode.text == #"{"error":"invalid_request"}"#)
            #expect(try await client.refresh("r", secret: huge).text == #"{"error":"invalid_client"}"#)
            var raw = try await Self.secret()
            let parts = raw.split(separator: ".")
            let payload = Data(#"{"iss":"DEF123GHIJ","exp":1e300,"iat":-1e300}"#.utf8).base64URLEncoded
            raw = [String(parts[0]), payload, String(parts[2])].joined(separator: ".")
            #expect(try await client.refresh("r", secret: raw).text == #"{"error":"invalid_client"}"#)
            let fields = try await client.signIn("maria")
            let noRedirect = try await client.exchange(code: fields["code"] ?? "", redirect: nil, secret: secret)
            #expect(noRedirect.text == #"{"error":"invalid_request"}"#)
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
        }
    }

    @Test("a missing code with a valid secret is invalid_request")
    func missingCode() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            let response = try await client.postForm(
                "/auth/token",
                [("grant_type", "authorization_code"), ("client_id", Fixture.webClient), ("client_secret", secret)])
            #expect(response.text == #"{"error":"invalid_request"}"#)
        }
    }
}
