import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import AppleIDMock

/// `/auth/*` requests that a reset or scenario switch overtakes are answered in Apple's vocabulary,
/// as if they came after it: a wiped code or token is `invalid_grant`, never `invalid_request`.
@Suite("Requests racing a reset")
struct ResetRaceRouterTests {
    /// Holds the next call to `endpoint` (a fault rule's latency, after the request read the state
    /// in force), runs `during` once it is held, and returns the call's answer. When the call was
    /// answered before `during` finished (a loaded machine), the round proves nothing: it is run
    /// again from `prepare`, holding the call twice as long, up to 8 s.
    static func overtaken(
        _ client: some TestClientProtocol, endpoint: String, prepare: () async throws -> Void = {},
        call: @escaping @Sendable () async throws -> TestResponse, during: () async throws -> Void
    ) async throws -> TestResponse {
        var hold = 1_000
        while true {
            try await prepare()
            let rule = try await client.postJSON(
                "/__admin/faults", #"{"endpoint":"\#(endpoint)","latencyMilliseconds":\#(hold),"times":1}"#)
            #expect(rule.status == .created || rule.status == .ok)
            let started = ContinuousClock.now
            let answered = Mutex<Bool>(false)
            async let answer = { () async throws -> TestResponse in
                let response = try await call()
                answered.withLock { $0 = true }
                return response
            }()
            // Waits for the rule to fire: the call is then past reading the state, and held.
            let fired = try await Waiting.until(seconds: 8, every: .milliseconds(5)) {
                let faults =
                    try await client.execute(uri: "/__admin/faults", method: .get).json["faults"] as? [[String: Any]]
                return (faults?.first?["fired"] as? Int ?? 0) > 0
            }
            #expect(fired)
            try await during()
            let overtaken = !answered.withLock { $0 }
            let response = try await answer
            if overtaken || hold >= 8_000 {
                #expect(overtaken, "the call was answered before the reset on every round")
                return response
            }
            _ = try await client.execute(uri: "/__admin/faults", method: .delete)
            hold *= 2
        }
    }

    @Test("a step on a state a reset made stale keeps nothing and says so; out of reruns it is invalid_grant")
    func staleStepRefused() async throws {
        let services = try await MockServices.load(
            configuration: Fixture.configuration(), store: MemoryStore(), clock: .fixed(at: Fixture.start),
            logger: Logger(label: "test"))
        let stale = try await services.state.current()
        try await services.state.reset()
        let fresh = try await services.state.current()
        #expect(fresh.control.epoch != stale.control.epoch)
        // `AppleCallMiddleware` runs the call again on `SessionChanged` (the tests below), in the
        // state in force then.
        await #expect(throws: SessionChanged.self) {
            try await services.state.withSession(stale) { _, _ in stale.control.epoch }
        }
        #expect(try await services.state.withSession(fresh) { _, _ in fresh.control.epoch } == fresh.control.epoch)
        // A step that keeps meeting resets ends in Apple's invalid_grant, not invalid_request.
        #expect(AppleErrorMiddleware.appleError(for: SessionChanged())?.0.code == "invalid_grant")
    }

    @Test("a code exchange overtaken by a reset gets invalid_grant: the code has expired or has been revoked")
    func codeAfterReset() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            let code = Mutex("")
            let answer = try await Self.overtaken(
                client, endpoint: "token",
                prepare: {
                    let fresh = try await client.signIn("maria")["code"] ?? ""
                    code.withLock { $0 = fresh }
                },
                call: { try await client.exchange(code: code.withLock { $0 }, secret: secret) },
                during: {
                    let reset = try await client.execute(uri: "/__admin/reset", method: .post)
                    #expect(reset.status == .ok)
                })
            #expect(
                answer.text
                    == #"{"error":"invalid_grant","error_description":"The code has expired or has been revoked."}"#)
        }
    }

    @Test("a refresh overtaken by a scenario switch gets invalid_grant: the token has expired or has been revoked")
    func refreshAfterSwitch() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            let refresh = Mutex("")
            let answer = try await Self.overtaken(
                client, endpoint: "token",
                prepare: {
                    let code = try await client.signIn("maria")["code"] ?? ""
                    let token =
                        try await client.exchange(code: code, secret: secret).json["refresh_token"] as? String ?? ""
                    refresh.withLock { $0 = token }
                },
                call: { try await client.refresh(refresh.withLock { $0 }, secret: secret) },
                during: {
                    let switched = try await client.postJSON("/__admin/scenario", #"{"name":"default"}"#, method: .put)
                    #expect(switched.status == .ok)
                })
            #expect(
                answer.text
                    == #"{"error":"invalid_grant","error_description":"The token has expired or has been revoked."}"#)
        }
    }

    @Test("a revoke overtaken by a reset answers 200, as for any token Apple no longer holds")
    func revokeAfterReset() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            let refresh = Mutex("")
            let answer = try await Self.overtaken(
                client, endpoint: "revoke",
                prepare: {
                    let code = try await client.signIn("maria")["code"] ?? ""
                    let token =
                        try await client.exchange(code: code, secret: secret).json["refresh_token"] as? String ?? ""
                    refresh.withLock { $0 = token }
                },
                call: {
                    try await client.postForm(
                        "/auth/revoke",
                        [
                            ("client_id", Fixture.webClient), ("client_secret", secret),
                            ("token", refresh.withLock { $0 }),
                        ])
                },
                during: {
                    let reset = try await client.execute(uri: "/__admin/reset", method: .post)
                    #expect(reset.status == .ok)
                })
            #expect(answer.status == .ok && answer.body.readableBytes == 0)
        }
    }
}
