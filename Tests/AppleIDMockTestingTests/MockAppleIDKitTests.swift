import AppleIDMockTesting
import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import JWTKit
import Synchronization
import Testing

/// The `AppleIDMockTesting` kit used as a Swift server team would use it: only its public API
/// (this target imports nothing else of the project), tokens verified with jwt-kit as a backend does.
@Suite("AppleIDMockTesting kit")
struct MockAppleIDKitTests {
    static let webClient = "com.example.web"
    static let appClient = "com.example.app"
    static let redirect = "http://localhost:3000/auth/apple/callback"

    /// Verifies an identity token as a backend does: by `kid` from the JWKS, issuer, audience, expiry.
    static func verify(_ token: String, jwks: String, audience: String) async throws -> AppleIdentityToken {
        let keys = try await JWTKeyCollection().add(jwksJSON: jwks)
        return try await keys.verify(token, as: AppleIdentityToken.self, expectedAudience: audience)
    }

    @Test("live: a free port a backend can call; web sign-in, code exchange, tokens verified by jwt-kit")
    func liveWebSignIn() async throws {
        try await MockAppleID.run(.live) { mock in
            let baseURL = try #require(mock.baseURL)
            // A backend reaches it with its own HTTP client.
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: baseURL + "/.well-known/openid-configuration"), timeout: .seconds(5))
            #expect(response.status == .ok)

            let signIn = try await mock.signInWeb(
                "sam", clientId: Self.webClient, redirectURI: Self.redirect, nonce: "n1")
            #expect(signIn.user?.contains("privaterelay.appleid.com") == true)
            let jwks = try await mock.keys()
            let front = try await Self.verify(signIn.idToken, jwks: jwks, audience: Self.webClient)
            #expect(front.issuer.value == MockAppleID.issuer && front.nonce == "n1")

            let tokens = try await mock.exchange(
                code: signIn.code, clientId: Self.webClient, redirectURI: Self.redirect)
            let idToken = try await Self.verify(try #require(tokens.idToken), jwks: jwks, audience: Self.webClient)
            #expect(idToken.subject == front.subject && tokens.refreshToken != nil)

            let exchanges = try await mock.journal(endpoint: "token", clientId: Self.webClient)
            #expect(exchanges.first?.outcome == "ok" && exchanges.first?.grantType == "authorization_code")
            #expect(exchanges.first?.clientSecretTeamId == "DEF123GHIJ")

            let refreshToken = try #require(tokens.refreshToken)
            let refreshed = try await mock.refresh(refreshToken, clientId: Self.webClient)
            #expect(refreshed.refreshToken == nil && refreshed.idToken != nil)
            try await mock.revoke(refreshToken, clientId: Self.webClient)
            await #expect {
                _ = try await mock.refresh(refreshToken, clientId: Self.webClient)
            } throws: { error in
                "\(error)".contains("invalid_grant")
            }
        }
    }

    @Test("router: no port; a native credential verifies; a second sign-in is not a first one")
    func routerNativeSignIn() async throws {
        try await MockAppleID.run(.router) { mock in
            #expect(mock.baseURL == nil)
            let first = try await mock.signInNative("maria", bundleId: Self.appClient, nonce: "n2")
            #expect(first.email != nil && first.fullName?.givenName != nil)
            let token = try await Self.verify(
                first.identityToken, jwks: try await mock.keys(), audience: Self.appClient)
            #expect(token.subject.value == first.user && token.nonce == "n2")
            let again = try await mock.signInNative("maria", bundleId: Self.appClient)
            #expect(again.email == nil && again.authorizedScopes.isEmpty && again.user == first.user)
        }
    }

    @Test("an account upgrade: state and nonce as sent, no email or name, a code the backend exchanges")
    func routerUpgrade() async throws {
        try await MockAppleID.run(.router) { mock in
            let upgrade = try await mock.upgradeNative("maria", bundleId: Self.appClient, state: "s-up", nonce: "n-up")
            #expect(upgrade.state == "s-up" && upgrade.email == nil && upgrade.fullName == nil)
            #expect(upgrade.authorizedScopes.isEmpty)
            let token = try await Self.verify(
                upgrade.identityToken, jwks: try await mock.keys(), audience: Self.appClient)
            #expect(token.subject.value == upgrade.user && token.nonce == "n-up" && token.email == nil)
            let tokens = try await mock.exchange(code: upgrade.authorizationCode, clientId: Self.appClient)
            #expect(tokens.refreshToken != nil)
        }
    }

    @Test("the mock's clock: start frozen, move it, and a code expires without sleeping")
    func clock() async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        try await MockAppleID.run(.router, options: .init(startingAt: start)) { mock in
            #expect(try await mock.now() == start)
            let signIn = try await mock.signInWeb("sam", clientId: Self.webClient, redirectURI: Self.redirect)
            try await mock.advanceClock(by: .seconds(600))
            #expect(try await mock.now() == start.addingTimeInterval(600))
            await #expect {
                _ = try await mock.exchange(code: signIn.code, clientId: Self.webClient, redirectURI: Self.redirect)
            } throws: { error in
                "\(error)".contains("400") && "\(error)".contains("invalid_grant")
            }
            let refusal = try #require(try await mock.journal(endpoint: "token", outcome: "invalid_grant").first)
            #expect(refusal.reason?.isEmpty == false)
        }
    }

    @Test("lifecycle: account deletion is notified to the app group's URL and the wait sees it delivered")
    func notificationDelivered() async throws {
        let received = ReceivedPayloads()
        let router = Router()
        router.post("/apple/notifications") { request, _ -> HTTPResponse.Status in
            received.add(String(buffer: try await request.body.collect(upTo: 1 << 16)))
            return .ok
        }
        try await Application(router: router).test(.live) { receiver in
            let port = try #require(receiver.port)
            try await MockAppleID.run(.live) { mock in
                // The bundled scenario, with the backend's notification URL pointing at this test's receiver.
                let bundled = try String(
                    contentsOfFile: MockAppleID.BundledFiles.scenariosDirectory + "/default.json", encoding: .utf8)
                let scenario = bundled.replacingOccurrences(
                    of: "http://localhost:3000/auth/apple/notifications",
                    with: "http://127.0.0.1:\(port)/apple/notifications")
                try await mock.useScenario(json: scenario, named: "kit-test")

                let credential = try await mock.signInNative("sam", bundleId: Self.appClient)
                let fired = try await mock.trigger(.accountDeleted, user: "sam")
                #expect(fired.outcome == "applied" && fired.notificationIds.count == 1)
                let delivered = try await mock.waitForDelivery(of: fired)
                #expect(delivered.map(\.sub) == [credential.user] && delivered.first?.type == "account-delete")
                let notification = try await mock.waitForNotification(type: .accountDeleted, sub: credential.user)
                #expect(notification.attempts.last?.httpStatus == 200)
                #expect(received.all.count == 1 && received.all.first?.contains("\"payload\"") == true)

                let attempts = try await mock.journal(endpoint: "notifications", user: "sam")
                #expect(attempts.first?.notificationType == "account-delete" && attempts.first?.status == 200)
            }
        }
    }

    @Test("helpers fail with the mock's answer: an unknown client, a bad scenario, a notification that never comes")
    func failures() async throws {
        try await MockAppleID.run(.router) { mock in
            await #expect {
                _ = try await mock.signInWeb("sam", clientId: "com.unknown.web", redirectURI: Self.redirect)
            } throws: { error in
                "\(error)".contains("invalid_client")
            }
            await #expect {
                try await mock.useScenario(json: #"{"users": 3}"#)
            } throws: { error in
                "\(error)".contains("$.users")
            }
            await #expect {
                _ = try await mock.waitForNotification(type: .emailDisabled, timeout: .milliseconds(100))
            } throws: { error in
                "\(error)".contains("timed out")
            }
            await #expect {
                try await mock.advanceClock(by: .milliseconds(1500))
            } throws: { error in
                "\(error)".contains("whole seconds")
            }
        }
    }
}

/// What the test's receiver got, across its handler's tasks.
final class ReceivedPayloads: Sendable {
    private let payloads = Mutex<[String]>([])

    func add(_ payload: String) { payloads.withLock { $0.append(payload) } }
    var all: [String] { payloads.withLock { $0 } }
}

/// The Swift example of `docs/testing-kit.md` is `ReadmeExampleTests.swift`, character for character.
@Suite("README example")
struct ReadmeExampleDriftTests {
    @Test("docs/testing-kit.md shows the example that runs")
    func sameText() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let page = try String(
            contentsOf: folder.appendingPathComponent("../../docs/testing-kit.md").standardizedFileURL,
            encoding: .utf8)
        let example = try String(contentsOf: folder.appendingPathComponent("ReadmeExampleTests.swift"), encoding: .utf8)
        let code = try #require(example.range(of: "import AppleIDMockTesting")).lowerBound
        #expect(page.contains("```swift\n" + example[code...] + "```\n"))
    }
}

/// The Swift example of "Verify what your backend did" (docs/testing-kit.md, docs/control-plane.md) is
/// `VerifyExampleTests.swift`, character for character.
@Suite("Verify example")
struct VerifyExampleDriftTests {
    @Test(
        "docs/testing-kit.md and docs/control-plane.md show the example that runs",
        arguments: ["docs/testing-kit.md", "docs/control-plane.md"])
    func sameText(page: String) throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let text = try String(
            contentsOf: folder.appendingPathComponent("../../" + page).standardizedFileURL, encoding: .utf8)
        let example = try String(contentsOf: folder.appendingPathComponent("VerifyExampleTests.swift"), encoding: .utf8)
        let code = try #require(example.range(of: "import AppleIDMockTesting")).lowerBound
        #expect(text.contains("```swift\n" + example[code...] + "```\n"))
    }
}
