// The Swift example of "Verify what your backend did" (docs/testing-kit.md, docs/control-plane.md), verbatim.
import AppleIDMockTesting
import Testing

@Test func theBackendExchangedOneCode() async throws {
    try await MockAppleID.run(.live) { mock in
        // Your backend signs sam in and exchanges the code; here the kit does it as a backend would.
        let callback = "http://localhost:3000/auth/apple/callback"
        let signIn = try await mock.signInWeb("sam", clientId: "com.example.web", redirectURI: callback)
        _ = try await mock.exchange(code: signIn.code, clientId: "com.example.web", redirectURI: callback)

        // Exactly one code exchange by that client, waiting up to 5 s for a backend that works later.
        try await mock.verify(
            .init(endpoint: "token", grantType: "authorization_code", clientId: "com.example.web", outcome: "ok"),
            count: .exactly(1), waitSeconds: 5)
        // The sign-in came before the exchange.
        try await mock.verifySequence([.init(endpoint: "authorize"), .init(endpoint: "token")])
        // No refresh yet: the error lists the near misses (the code exchange, differing in grantType).
        await #expect(throws: MockAppleIDError.self) {
            try await mock.verify(.init(endpoint: "token", grantType: "refresh_token"))
        }
    }
}
