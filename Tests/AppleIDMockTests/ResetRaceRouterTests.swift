import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// `/auth/*` requests that a reset or scenario switch overtakes are answered in Apple's vocabulary,
/// as if they came after it: a wiped code or token is `invalid_grant`, never `invalid_request`.
@Suite("Requests racing a reset")
struct ResetRaceRouterTests {
    /// Holds the next call to `endpoint` for a while (a fault rule's latency, after the request read
    /// the state in force), runs `during` once it is held, and returns the call's answer.
    static func overtaken(
        _ client: some TestClientProtocol, endpoint: String,
        call: @escaping @Sendable () async throws -> TestResponse, during: () async throws -> Void
    ) async throws -> TestResponse {
        let rule = try await client.postJSON(
            "/__admin/faults", #"{"endpoint":"\#(endpoint)","latencyMilliseconds":1500,"times":1}"#)
        #expect(rule.status == .created || rule.status == .ok)
        async let answer = call()
        // Waits for the rule to fire: the call is then past reading the state, and held.
        var fired = false
        for _ in 0..<500 where !fired {
            let faults =
                try await client.execute(uri: "/__admin/faults", method: .get).json["faults"] as? [[String: Any]]
            fired = (faults?.first?["fired"] as? Int ?? 0) > 0
            if !fired { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(fired)
        try await during()
        return try await answer
    }

    @Test("a code exchange overtaken by a reset gets invalid_grant: the code has expired or has been revoked")
    func codeAfterReset() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        let secret = try await Fixture.secret()
        try await app.test(.router) { client in
            let code = try await client.signIn("maria")["code"] ?? ""
            let answer = try await Self.overtaken(
                client, endpoint: "token", call: { try await client.exchange(code: code, secret: secret) },
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
            let code = try await client.signIn("maria")["code"] ?? ""
            let refresh = try await client.exchange(code: code, secret: secret).json["refresh_token"] as? String ?? ""
            let answer = try await Self.overtaken(
                client, endpoint: "token", call: { try await client.refresh(refresh, secret: secret) },
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
            let code = try await client.signIn("maria")["code"] ?? ""
            let refresh = try await client.exchange(code: code, secret: secret).json["refresh_token"] as? String ?? ""
            let answer = try await Self.overtaken(
                client, endpoint: "revoke",
                call: {
                    try await client.postForm(
                        "/auth/revoke",
                        [("client_id", Fixture.webClient), ("client_secret", secret), ("token", refresh)])
                },
                during: {
                    let reset = try await client.execute(uri: "/__admin/reset", method: .post)
                    #expect(reset.status == .ok)
                })
            #expect(answer.status == .ok && answer.body.readableBytes == 0)
        }
    }
}
