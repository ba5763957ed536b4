// The example of docs/testing-kit.md, verbatim: if it stops compiling or passing, the page is wrong.
import AppleIDMockTesting
import Foundation
import JWTKit
import Testing

@Test func signInWithApple() async throws {
    // The mock's clock stands still from now on; tokens stay valid for a verifier on the wall clock.
    try await MockAppleID.run(.live, options: .init(startingAt: Date())) { mock in
        // Your backend under test is configured with mock.baseURL instead of https://appleid.apple.com.
        let signIn = try await mock.signInWeb(
            "sam", clientId: "com.example.web", redirectURI: "http://localhost:3000/auth/apple/callback")
        // …post signIn.code to your callback route; here the kit exchanges it as a backend would:
        let tokens = try await mock.exchange(
            code: signIn.code, clientId: "com.example.web", redirectURI: "http://localhost:3000/auth/apple/callback")
        let keys = try await JWTKeyCollection().add(jwksJSON: try await mock.keys())
        let token = try await keys.verify(
            tokens.idToken!, as: AppleIdentityToken.self, expectedAudience: "com.example.web")
        #expect(token.issuer.value == MockAppleID.issuer)

        // Lifecycle: the account is deleted and Apple notifies the app group's notificationUrl. With a
        // scenario pointing it at your server (mock.useScenario(json:)), wait until it answered 2xx:
        // try await mock.waitForDelivery(of: deleted)
        let deleted = try await mock.trigger(.accountDeleted, user: "sam")
        #expect(deleted.notificationIds.count == 1)

        // Time moves only when you say so.
        try await mock.advanceClock(by: .seconds(86_400))
        // What did the backend send? The request journal.
        let revokes = try await mock.journal(endpoint: "revoke", user: "sam")
        #expect(revokes.isEmpty)
    }
}
