// The namespace example of docs/testing-kit.md, verbatim: if it stops compiling or passing, the page is wrong.
import AppleIDMockTesting
import Foundation
import Testing

@Test func twoTeamsOnOneMock() async throws {
    let callback = "http://localhost:3000/auth/apple/callback"
    try await MockAppleID.run(.live, options: .init(startingAt: Date())) { mock in
        try await mock.withNamespace { teamA in
            try await mock.withNamespace(options: .init(scenario: "transfer")) { teamB in
                // Give teamA.baseURL (…/ns/<name>) to the backend under test.
                let signIn = try await teamA.signInWeb("sam", clientId: "com.example.web", redirectURI: callback)
                try await teamB.advanceClock(by: .seconds(86_400))  // teamA's clock has not moved:
                _ = try await teamA.exchange(code: signIn.code, clientId: "com.example.web", redirectURI: callback)
                #expect(try await teamB.journal(endpoint: "token").isEmpty)
            }
        }  // both namespaces are gone now
    }
}
