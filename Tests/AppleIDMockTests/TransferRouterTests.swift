import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// App transfer between teams over HTTP: client-credentials tokens, `/auth/usermigrationinfo` for
/// both teams, `transfer_sub` in id_tokens, credential state `transferred`, and the 60-day window.
@Suite("App transfer")
struct TransferRouterTests {
    static let teamA = "DEF123GHIJ"
    static let teamB = "XYZ789KLMN"

    static func secret(_ client: some TestClientProtocol, _ clientId: String = Fixture.webClient, team: String? = nil)
        async throws -> String
    {
        let body = team.map { #"{"clientId":"\#(clientId)","teamId":"\#($0)"}"# } ?? #"{"clientId":"\#(clientId)"}"#
        return try #require(try await client.postJSON("/__admin/client-secret", body).json["clientSecret"] as? String)
    }

    static func migrationToken(_ client: some TestClientProtocol, secret: String, scope: String = "user.migration")
        async throws -> TestResponse
    {
        try await client.postForm(
            "/auth/token",
            [
                ("grant_type", "client_credentials"), ("client_id", Fixture.webClient), ("client_secret", secret),
                ("scope", scope),
            ])
    }

    static func migrate(
        _ client: some TestClientProtocol, bearer: String?, secret: String, _ pairs: [(String, String)]
    ) async throws -> TestResponse {
        try await client.postForm(
            "/auth/usermigrationinfo", pairs + [("client_id", Fixture.webClient), ("client_secret", secret)],
            headers: bearer.map { [.authorization: "Bearer \($0)"] } ?? [:])
    }

    static func sub(_ user: String, _ team: String) -> String {
        IdentifierDerivation.subject(userKey: user, teamId: team)
    }

    @Test("a transfer rehearsed end to end, through the end of the migration window")
    func transfer() async throws {
        let clock = MockClock.fixed(at: Fixture.start)
        let app = try await Fixture.application(clock: clock)
        try await app.test(.router) { client in
            #expect(try await client.postJSON("/__admin/scenario", #"{"name":"transfer"}"#, method: .put).status == .ok)
            // Users sign in with team A.
            let secretA = try await Self.secret(client)
            for user in ["sam", "maria"] {
                let fields = try await client.signIn(user)
                #expect(try await client.exchange(code: fields["code"] ?? "", secret: secretA).status == .ok)
            }

            // 1. Team A's client-credentials token; only scope=user.migration.
            #expect(
                try await Self.migrationToken(client, secret: secretA, scope: "openid").text
                    == #"{"error":"invalid_scope"}"#)
            let tokenA = try await Self.migrationToken(client, secret: secretA).json
            #expect(Set(tokenA.keys) == ["access_token", "token_type", "expires_in"])
            let bearerA = try #require(tokenA["access_token"] as? String)

            // 2. The sender creates transfer ids, even before the transfer.
            let step1 = try await Self.migrate(
                client, bearer: bearerA, secret: secretA,
                [("sub", Self.sub("sam", Self.teamA)), ("target", Self.teamB)])
            let transferSub = try #require(step1.json["transfer_sub"] as? String)
            #expect(
                transferSub
                    == IdentifierDerivation.transferSubject(userKey: "sam", fromTeam: Self.teamA, toTeam: Self.teamB))
            #expect(transferSub.wholeMatch(of: /[0-9]{6}\.[0-9a-f]{32}\.[0-9]{4}/) != nil)

            // Errors as §8.
            let noBearer = try await Self.migrate(
                client, bearer: nil, secret: secretA, [("sub", Self.sub("sam", Self.teamA)), ("target", Self.teamB)])
            #expect(noBearer.text == #"{"error":"invalid_request"}"#)
            let appToken =
                try await client.postForm(
                    "/auth/token",
                    [
                        ("grant_type", "client_credentials"), ("client_id", Fixture.appClient),
                        ("client_secret", try await Self.secret(client, Fixture.appClient)),
                        ("scope", "user.migration"),
                    ]
                ).json["access_token"] as? String
            let foreignBearer = try await Self.migrate(
                client, bearer: appToken, secret: secretA,
                [("sub", Self.sub("sam", Self.teamA)), ("target", Self.teamB)])
            #expect(foreignBearer.text == #"{"error":"invalid_request"}"#)
            let duplicate = try await Self.migrate(
                client, bearer: bearerA, secret: secretA, [("sub", "a"), ("sub", "b"), ("target", Self.teamB)])
            #expect(duplicate.text == #"{"error":"invalid_request"}"#)
            let badSecret = try await Self.migrate(
                client, bearer: bearerA, secret: "x", [("sub", Self.sub("sam", Self.teamA)), ("target", Self.teamB)])
            #expect(badSecret.text == #"{"error":"invalid_client"}"#)
            let unknownToken = try await Self.migrate(
                client, bearer: "a-unknown", secret: secretA,
                [("sub", Self.sub("sam", Self.teamA)), ("target", Self.teamB)])
            #expect(unknownToken.text == #"{"error":"invalid_grant"}"#)
            // Team B cannot act for the app before the transfer.
            #expect(
                try await Self.migrationToken(client, secret: try await Self.secret(client, team: Self.teamB)).text
                    == #"{"error":"invalid_client"}"#)

            // 3. The clock reaches the scenario's transfer date.
            _ = try await client.postJSON("/__admin/clock", #"{"now":"2031-01-01T00:00:01Z"}"#)
            let transfers = try #require(
                try await client.execute(uri: "/__admin/transfers", method: .get).json["transfers"] as? [[String: Any]])
            #expect(
                transfers.first?["toTeam"] as? String == Self.teamB && transfers.first?["windowOpen"] as? Bool == true)

            // 4. The recipient exchanges the transfer id: new sub and a new relay address.
            let secretB = try await Self.secret(client)  // the owner is now team B
            #expect(Fixture.claims(of: secretB)["iss"] as? String == Self.teamB)
            let bearerB = try #require(
                try await Self.migrationToken(client, secret: secretB).json["access_token"] as? String)
            let step2 = try await Self.migrate(
                client, bearer: bearerB, secret: secretB, [("transfer_sub", transferSub)])
            #expect(step2.json["sub"] as? String == Self.sub("sam", Self.teamB))
            let newRelay = IdentifierDerivation.relayEmail(userKey: "sam", teamId: Self.teamB)
            #expect(step2.json["email"] as? String == newRelay)
            #expect(newRelay != IdentifierDerivation.relayEmail(userKey: "sam", teamId: Self.teamA))
            #expect(step2.text.contains(#""is_private_email":true"#))
            let mariaTransfer = IdentifierDerivation.transferSubject(
                userKey: "maria", fromTeam: Self.teamA, toTeam: Self.teamB)
            let maria = try await Self.migrate(
                client, bearer: bearerB, secret: secretB, [("transfer_sub", mariaTransfer)]
            ).json
            #expect(maria["sub"] as? String == Self.sub("maria", Self.teamB) && maria["email"] == nil)
            // The sender still works during the window, with a secret on the mock's clock.
            let secretAAfter = try await Self.secret(client, team: Self.teamA)
            let bearerAAfter = try #require(
                try await Self.migrationToken(client, secret: secretAAfter).json["access_token"] as? String)
            #expect(
                try await Self.migrate(
                    client, bearer: bearerAAfter, secret: secretAAfter,
                    [("sub", Self.sub("maria", Self.teamA)), ("target", Self.teamB)]
                ).status == .ok)

            let notRecipient = try await Self.migrate(
                client, bearer: bearerAAfter, secret: secretAAfter,
                [("sub", Self.sub("maria", Self.teamA)), ("target", Self.teamA)])
            #expect(notRecipient.text == #"{"error":"invalid_request"}"#)

            // 5. Team B's id_tokens carry transfer_sub for migrated users only.
            let again = try await client.signIn("sam")
            let tokens = try await client.exchange(code: again["code"] ?? "", secret: secretB).json
            let claims = Fixture.claims(of: tokens["id_token"] as? String ?? "")
            #expect(claims["sub"] as? String == Self.sub("sam", Self.teamB))
            #expect(claims["transfer_sub"] as? String == transferSub)
            #expect(claims["email"] as? String == newRelay)
            let newcomer = try await client.signIn("alex")
            #expect(Fixture.claims(of: newcomer["id_token"] ?? "")["transfer_sub"] == nil)

            // 6. A user access token works once for migration.
            let userToken = try #require(tokens["access_token"] as? String)
            #expect(
                try await Self.migrate(client, bearer: userToken, secret: secretB, [("transfer_sub", transferSub)])
                    .status == .ok)
            #expect(
                try await Self.migrate(client, bearer: userToken, secret: secretB, [("transfer_sub", transferSub)]).text
                    == #"{"error":"invalid_grant"}"#)

            // 7. Devices: the old id is `transferred`; a native sign-in with it returns the new one.
            let oldId = Self.sub("sam", Self.teamA)
            let state = try await client.execute(
                uri: "/__admin/native/credential-state?clientId=com.example.app&userId=\(oldId)", method: .get)
            #expect(state.json["state"] as? String == "transferred")
            let native = try await client.postJSON(
                "/__admin/native/authorize", #"{"clientId":"com.example.app","userId":"\#(oldId)"}"#)
            #expect(native.json["user"] as? String == Self.sub("sam", Self.teamB))

            // 8. A user who revoked before migration is refused.
            _ = try await client.postJSON(
                "/__admin/events", #"{"type":"consent-revoked","user":"maria","appGroup":"example"}"#)
            #expect(
                try await Self.migrate(client, bearer: bearerB, secret: secretB, [("transfer_sub", mariaTransfer)]).text
                    == #"{"error":"invalid_request"}"#)

            // 9. Tokens expire after an hour; the window closes after 60 days.
            clock.advance(by: 3_601)
            #expect(
                try await Self.migrate(
                    client, bearer: bearerB, secret: try await Self.secret(client), [("transfer_sub", transferSub)]
                ).text == #"{"error":"invalid_grant"}"#)
            clock.advance(by: 60 * 86_400)
            let lateSecret = try await Self.secret(client)
            let lateBearer = try #require(
                try await Self.migrationToken(client, secret: lateSecret).json["access_token"] as? String)
            #expect(
                try await Self.migrate(client, bearer: lateBearer, secret: lateSecret, [("transfer_sub", transferSub)])
                    .text == #"{"error":"invalid_request"}"#)
            #expect(
                try await Self.migrationToken(client, secret: try await Self.secret(client, team: Self.teamA)).text
                    == #"{"error":"invalid_client"}"#)
            let late = try await client.signIn("sam")
            #expect(Fixture.claims(of: late["id_token"] ?? "")["transfer_sub"] == nil)
            let lateState = try await client.execute(
                uri: "/__admin/native/credential-state?clientId=com.example.app&userId=\(oldId)", method: .get)
            #expect(lateState.json["state"] as? String == "notFound")
        }
    }

    @Test("transfers are started over the control plane, with clear refusals")
    func adminTransfer() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            #expect(
                try await client.postJSON("/__admin/transfers", #"{"appGroup":"nope","toTeam":"XYZ789KLMN"}"#).status
                    == .notFound)
            #expect(
                try await client.postJSON("/__admin/transfers", #"{"appGroup":"example","toTeam":"DEF123GHIJ"}"#).status
                    == .conflict)
            let started = try await client.postJSON(
                "/__admin/transfers", #"{"appGroup":"com.example.web","toTeam":"XYZ789KLMN"}"#)
            #expect(started.status == .ok)
            #expect(started.json["windowOpen"] as? Bool == true)
            #expect(
                try await client.postJSON("/__admin/transfers", #"{"appGroup":"example","toTeam":"XYZ789KLMN"}"#).status
                    == .conflict)
            let view = try await client.execute(uri: "/__admin/scenario", method: .get).json
            let group = (view["appGroups"] as? [[String: Any]])?.first { $0["id"] as? String == "example" }
            #expect(group?["teamId"] as? String == "XYZ789KLMN")
        }
    }
}
