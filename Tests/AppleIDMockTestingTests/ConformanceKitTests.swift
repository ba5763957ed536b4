import AppleIDMockTesting
import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import JWTKit
import Synchronization
import Testing

/// The kit's `conformance(_:)` and `assertConformant(_:)` against receivers of Apple's
/// notifications in this process: one that verifies them with jwt-kit as a backend does, one that
/// takes any post. Public API only.
@Suite("Kit: backend conformance runs")
struct ConformanceKitTests {
    /// A notification's claims as a receiver reads them: `events` a string holding JSON.
    struct AppleNotification: JWTPayload {
        var iss: IssuerClaim
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var iat: IssuedAtClaim
        var events: String

        func verify(using algorithm: some JWTAlgorithm) throws {
            try exp.verifyNotExpired()
            guard iss.value == MockAppleID.issuer else {
                throw JWTError.claimVerificationFailure(failedClaim: iss, reason: "issuer")
            }
            try aud.verifyIntendedAudience(includes: "com.example.app")
        }
    }

    /// The body Apple posts.
    struct Post: Decodable {
        var payload: String
    }

    /// A receiver on a free port: `verifying` checks each notification against the mock's JWKS
    /// (fetched from `jwks`, set once the mock runs); otherwise it answers 200 to any payload that
    /// has a JWS's three parts (and 400 to one that has not, so a run's calibration can tell its
    /// refusals from its acceptances). With
    /// `lockingOutAfter`, every post after that many is answered 403, as a backend that locks a
    /// client out after a burst of refusals.
    static func withReceiver(
        verifying: Bool, lockingOutAfter limit: Int? = nil, takingAnything: Bool = false,
        _ body: @Sendable (_ url: String, _ jwks: PublishedKeys) async throws -> Void
    ) async throws {
        let jwks = PublishedKeys()
        let posts = Atomic<Int>(0)
        let router = Router()
        router.post("/apple/notifications") { request, context -> Response in
            let count = posts.add(1, ordering: .relaxed).newValue
            if let limit, count > limit { return Response(status: .forbidden) }
            if takingAnything { return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "taken"))) }
            let post = try await request.decode(as: Post.self, context: context)
            guard verifying else {
                let isJWS = post.payload.split(separator: ".", omittingEmptySubsequences: false).count == 3
                return Response(status: isJWS ? .ok : .badRequest)
            }
            guard let url = jwks.url else { return Response(status: .serviceUnavailable) }
            do {
                // Fetched for each notification: a run signs with its own namespace's key.
                let answer = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
                let json = String(buffer: try await answer.body.collect(upTo: 1 << 20))
                _ = try await JWTKeyCollection().add(jwksJSON: json).verify(post.payload, as: AppleNotification.self)
                return Response(status: .ok)
            } catch {
                return Response(status: .unauthorized)
            }
        }
        try await Application(router: router).test(.live) { receiver in
            let port = try #require(receiver.port)
            try await body("http://127.0.0.1:\(port)/apple/notifications", jwks)
        }
    }

    static func config(_ url: String) -> String {
        #"{"clientId": "com.example.app", "notifications": {"url": "\#(url)"}}"#
    }

    @Test("a receiver that verifies: every notification case passes, the report says so, assertConformant returns it")
    func verifyingReceiver() async throws {
        try await Self.withReceiver(verifying: true) { url, jwks in
            try await MockAppleID.run(.live) { mock in
                jwks.url = try #require(mock.baseURL) + "/auth/keys"
                let report = try await mock.assertConformant(Self.config(url), timeout: .seconds(120))
                #expect(report.state == "finished" && report.error == nil && report.failing.isEmpty)
                let sent = report.cases.filter { $0.verdict != "SKIPPED" }
                #expect(Set(sent.map(\.path)) == ["notifications"])
                #expect(
                    Set(sent.map(\.id)) == [
                        "ok-baseline", "sig-bad", "alg-none", "kid-unknown", "iss-wrong", "aud-other-client",
                        "exp-past",
                        "events-object",
                    ])
                #expect(sent.allSatisfy { $0.verdict == "PASS" }, "\(sent.map(\.line))")
                #expect(report.summary["PASS"] == sent.count)
                #expect(sent.allSatisfy { $0.curl?.contains(url) == true })
                // Each result carries what was sent and what came back.
                #expect(sent.allSatisfy { $0.request?.url == url && $0.request?.method == "POST" })
                #expect(sent.allSatisfy { $0.request?.body.contains(#""payload""#) == true })
                #expect(
                    sent.allSatisfy { [200, 401].contains($0.response?.status) }, "\(sent.map(\.response?.status))")
                #expect(report.finishedAt != nil && !report.startedAt.isEmpty)
            }
        }
    }

    @Test(
        "a receiver that locks the client out: its refusals after the last good check are INCONCLUSIVE, the rest not sent"
    )
    func lockedOut() async throws {
        try await Self.withReceiver(verifying: true, lockingOutAfter: 4) { url, jwks in
            try await MockAppleID.run(.live) { mock in
                jwks.url = try #require(mock.baseURL) + "/auth/keys"
                let report = try await mock.conformance(Self.config(url), timeout: .seconds(120))
                let sent = report.cases.filter { $0.verdict != "SKIPPED" }
                #expect(sent.first { $0.id == "ok-baseline" }?.verdict == "PASS")
                let others = sent.filter { $0.id != "ok-baseline" }
                #expect(!others.isEmpty)
                // Refused, but the valid notification was refused right after: not a PASS.
                #expect(others.allSatisfy { $0.verdict == "INCONCLUSIVE" }, "\(others.map(\.line))")
                #expect(others.contains { $0.note.contains("locked out?") && $0.response?.status != nil })
                #expect(others.contains { $0.note.hasPrefix("not sent") && $0.request == nil })
                #expect(throws: MockAppleID.ConformanceFailed.self) { try report.requireConformant() }
            }
        }
    }

    @Test("a run's namespace is gone once the run reads finished, and kept with keep: true")
    func namespaceRemovedUnlessKept() async throws {
        try await Self.withReceiver(verifying: false) { url, _ in
            try await MockAppleID.run(.live) { mock in
                let removed = try await mock.conformance(Self.config(url), timeout: .seconds(120))
                let afterRemoved = try await mock.send(.get, "/__admin/namespaces").body
                #expect(removed.namespace.hasPrefix("conformance-"))
                #expect(!afterRemoved.contains(#""\#(removed.namespace)""#), "\(afterRemoved)")
                let kept = try await mock.conformance(
                    #"{"clientId": "com.example.app", "keep": true, "notifications": {"url": "\#(url)"}}"#,
                    timeout: .seconds(120))
                let afterKept = try await mock.send(.get, "/__admin/namespaces").body
                #expect(afterKept.contains(#""\#(kept.namespace)""#), "\(afterKept)")
            }
        }
    }

    @Test("a receiver that takes any post: assertConformant throws ConformanceFailed naming each forgery it took")
    func anyPostReceiver() async throws {
        try await Self.withReceiver(verifying: false) { url, _ in
            try await MockAppleID.run(.live) { mock in
                let report = try await mock.conformance(Self.config(url), timeout: .seconds(120))
                let failing = Set(report.failing.map(\.id))
                #expect(failing == ["sig-bad", "alg-none", "kid-unknown", "iss-wrong", "aud-other-client", "exp-past"])
                #expect(report.cases.first { $0.id == "events-object" }?.verdict == "WARNING")
                #expect(throws: MockAppleID.ConformanceFailed.self) { try report.requireConformant() }
                do throws(MockAppleID.ConformanceFailed) {
                    try report.requireConformant()
                } catch {
                    let text = error.description
                    #expect(text.contains("6 case(s) failed"))
                    #expect(text.contains("FAIL notifications sig-bad: accepted a credential Apple never sends"))
                }
            }
        }
    }

    @Test(
        "a receiver that takes anything: INCONCLUSIVE by its status alone; with a rule only a taken post meets, FAILs")
    func takesAnything() async throws {
        try await Self.withReceiver(verifying: false, takingAnything: true) { url, _ in
            try await MockAppleID.run(.live) { mock in
                // 200 for a notification that is not a JWS, as for the valid one: a status cannot tell.
                let byStatus = try await mock.conformance(Self.config(url), timeout: .seconds(120))
                let sent = byStatus.cases.filter { $0.verdict != "SKIPPED" }
                #expect(sent.allSatisfy { $0.verdict == "INCONCLUSIVE" }, "\(sent.map(\.line))")
                // The rule names what only a taken notification shows: the probe that is not a JWS
                // showed it, a hole; the cases are sent and judged.
                let config =
                    #"{"clientId": "com.example.app", "notifications": {"url": "\#(url)", "accepted": {"bodyContains": "taken"}}}"#
                let byRule = try await mock.conformance(config, timeout: .seconds(120))
                let failing = Set(byRule.failing.map(\.id))
                #expect(
                    failing.isSuperset(of: ["jws-malformed", "sig-bad", "alg-none", "kid-unknown", "exp-past"]),
                    "\(failing)")
            }
        }
    }

    @Test("a config the mock refuses throws with the field named")
    func refusedConfig() async throws {
        try await MockAppleID.run(.router) { mock in
            _ = await #expect {
                _ = try await mock.conformance(#"{"clientId": "com.example.app", "notifications": {"type": "x"}}"#)
            } throws: { error in
                "\(error)".contains("400") && "\(error)".contains("$.notifications.type")
            }
        }
    }
}

/// Where the receiver fetches the mock's JWKS, across its handler's tasks.
final class PublishedKeys: Sendable {
    private let text = Mutex<String?>(nil)

    var url: String? {
        get { text.withLock { $0 } }
        set { text.withLock { $0 = newValue } }
    }
}
