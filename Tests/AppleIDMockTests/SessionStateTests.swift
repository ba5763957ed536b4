import Crypto
import Foundation
import Testing

@testable import AppleIDMock

/// The grant rules on their own, without HTTP: consent, codes, refresh tokens, revocation.
@Suite("Session state")
struct SessionStateTests {
    let now = Fixture.start

    func code(_ state: inout SessionState, challenge: String? = nil, method: String? = nil) throws -> String {
        let (consent, _) = try state.authorize(
            userKey: "maria", appGroupId: "example", scopes: ["email"], hidesEmail: false, now: now)
        let code = OpaqueToken.make(.code)
        state.store(
            code: AuthorizationCodeRecord(
                code: code, clientId: "com.example.web", appGroupId: "example", userKey: "maria",
                redirectUri: "https://r",
                nonce: nil, codeChallenge: challenge, codeChallengeMethod: method, issuedAt: now,
                expiresAt: now.addingTimeInterval(300), authTime: now, consentGeneration: consent.generation,
                redeemedAt: nil))
        return code
    }

    func redeem(
        _ state: inout SessionState, _ code: String, client: String = "com.example.web",
        redirect: String? = "https://r",
        verifier: String? = nil, pkce: MockSettings.PKCEMode = .strict, at time: Date? = nil
    ) -> OAuthError? {
        do {
            _ = try state.redeem(
                code: code, clientId: client, redirectUri: redirect, codeVerifier: verifier, pkce: pkce,
                now: time ?? now)
            return nil
        } catch {
            return error
        }
    }

    @Test("the first authorization is first; later ones reuse the frozen consent")
    func consentFrozen() throws {
        var state = SessionState()
        let first = try state.authorize(
            userKey: "maria", appGroupId: "example", scopes: ["name"], hidesEmail: false, now: now)
        let second = try state.authorize(
            userKey: "maria", appGroupId: "example", scopes: ["name", "email"], hidesEmail: true, now: now)
        #expect(first.isFirst && !second.isFirst)
        #expect(second.consent.scopes == ["name"])
        #expect(second.consent.hidesEmail == false)
    }

    @Test("revoking makes the next authorization first again, with a new generation")
    func revokeResets() throws {
        var state = SessionState()
        let first = try state.authorize(
            userKey: "maria", appGroupId: "example", scopes: [], hidesEmail: false, now: now)
        let revoked = state.revokeConsent(userKey: "maria", appGroupId: "example", now: now)
        #expect(revoked)
        let again = try state.authorize(
            userKey: "maria", appGroupId: "example", scopes: ["email"], hidesEmail: true, now: now)
        #expect(again.isFirst)
        #expect(again.consent.generation == first.consent.generation + 1)
        #expect(again.consent.scopes == ["email"])
    }

    @Test("codes are single use and expire after their lifetime")
    func singleUseAndExpiry() throws {
        var state = SessionState()
        let used = try code(&state)
        #expect(redeem(&state, used) == nil)
        #expect(redeem(&state, used) == .codeUsed)
        let expired = try code(&state)
        #expect(redeem(&state, expired, at: now.addingTimeInterval(300)) == .codeExpired)
        #expect(redeem(&state, "c-unknown") == .codeExpired)
    }

    @Test("codes are bound to client and redirect URI, with Apple's descriptions")
    func bindings() throws {
        var state = SessionState()
        let issued = try code(&state)
        #expect(
            redeem(&state, issued, client: "com.other").map(\.description)
                == "client_id mismatch. The code was not issued to com.other.")
        #expect(
            redeem(&state, issued, redirect: "https://x").map(\.description)
                == "redirect_uri mismatch. The code was not issued to https://x.")
        #expect(redeem(&state, issued) == nil)
    }

    @Test("PKCE: S256 and plain challenges are enforced; a verifier without challenge is refused when strict")
    func pkce() throws {
        var state = SessionState()
        let verifier = String(repeating: "v", count: 50)
        let s256 = Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
                of: "=", with: "")
        let challenged = try code(&state, challenge: s256, method: "S256")
        #expect(redeem(&state, challenged)?.code == "invalid_grant")
        #expect(redeem(&state, challenged, verifier: "wrong")?.code == "invalid_grant")
        #expect(redeem(&state, challenged, verifier: verifier) == nil)
        let plain = try code(&state, challenge: verifier, method: "plain")
        #expect(redeem(&state, plain, verifier: verifier) == nil)
        let unchallenged = try code(&state)
        #expect(redeem(&state, unchallenged, verifier: verifier)?.code == "invalid_grant")
        #expect(redeem(&state, unchallenged, verifier: verifier, pkce: .whenChallenged) == nil)
    }

    @Test("a code dies with the consent it came from")
    func codeDiesWithConsent() throws {
        var state = SessionState()
        let issued = try code(&state)
        state.revokeConsent(userKey: "maria", appGroupId: "example", now: now)
        #expect(redeem(&state, issued) == .codeExpired)
    }
}
