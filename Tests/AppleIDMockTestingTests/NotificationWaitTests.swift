import AppleIDMockTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// `waitForNotification` for a status notifications pass through (`pending`, `delivering`): its
/// count need not rise when the awaited one enters it, as others leave it meanwhile.
@Suite("AppleIDMockTesting kit: waiting for a passing status")
struct NotificationWaitTests {
    /// Holds each post the receiver gets until it is let through.
    actor Turnstile {
        private var waiting: [CheckedContinuation<Void, Never>] = []
        private(set) var arrived = 0

        func enter() async {
            arrived += 1
            await withCheckedContinuation { waiting.append($0) }
        }

        /// Lets the oldest waiting post through.
        func releaseOne() { if !waiting.isEmpty { waiting.removeFirst().resume() } }

        /// Lets every waiting post through.
        func releaseAll() {
            for continuation in waiting { continuation.resume() }
            waiting = []
        }
    }

    @Test(
        "a wait for `delivering` ends within about a second though another notification left it as the awaited one entered it"
    )
    func deliveringSeenSoon() async throws {
        let turnstile = Turnstile()
        let router = Router()
        router.post("/apple/notifications") { _, _ -> HTTPResponse.Status in
            await turnstile.enter()
            return .ok
        }
        try await Application(router: router).test(.live) { receiver in
            let port = try #require(receiver.port)
            try await MockAppleID.run(.live) { mock in
                let bundled = try String(
                    contentsOfFile: MockAppleID.BundledFiles.scenariosDirectory + "/default.json", encoding: .utf8)
                try await mock.useScenario(
                    json: bundled.replacingOccurrences(
                        of: "http://localhost:3000/auth/apple/notifications",
                        with: "http://127.0.0.1:\(port)/apple/notifications"),
                    named: "wait-test")
                _ = try await mock.signInNative("sam", bundleId: "com.example.app")
                let alex = try await mock.signInNative("alex", bundleId: "com.example.app")
                defer { Task { await turnstile.releaseAll() } }
                // sam's notification is held at the receiver: one notification is delivering.
                let first = try await mock.trigger(.accountDeleted, user: "sam")
                _ = try await mock.waitForNotification(id: first.notificationIds.first, status: "delivering")
                let started = ContinuousClock.now
                async let awaited = mock.waitForNotification(sub: alex.user, status: "delivering")
                // The wait is under way (asking for two delivering) when sam's leaves and alex's enters.
                try await Task.sleep(for: .milliseconds(300))
                await turnstile.releaseOne()
                _ = try await mock.waitForNotification(id: first.notificationIds.first)
                _ = try await mock.trigger(.accountDeleted, user: "alex")
                let notification = try await awaited
                #expect(notification.sub == alex.user && notification.status == "delivering")
                #expect(ContinuousClock.now - started < .seconds(4))
                await turnstile.releaseAll()
            }
        }
    }
}
