import Foundation
import JWTKit

/// Makes `client_secret` JWTs the way a backend does, with a team's `.p8` developer key from
/// `keys/developer/AuthKey_<KEYID>.p8`. Used by `apple-id-mock client-secret` and the tests.
package enum ClientSecretFactory {
    /// Why no secret could be made.
    package struct Failure: Error, CustomStringConvertible, Sendable {
        package var description: String
    }

    /// The claims Apple requires.
    struct Claims: JWTPayload {
        var iss: String
        var iat: Int
        var exp: Int
        var aud: String
        var sub: String

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// The path of a developer key's private half.
    static func privateKeyPath(keyId: String, keysDirectory: String) -> String {
        ((keysDirectory as NSString).appendingPathComponent("developer") as NSString)
            .appendingPathComponent("AuthKey_\(keyId).p8")
    }

    /// A secret for `clientId` of scenario `scenario` in `scenariosDirectory` (`apple-id-mock
    /// client-secret`), signed with the first key of its team whose `.p8` is in `keysDirectory`.
    /// Throws `ScenarioError` for scenario files with problems, `Failure` for anything else.
    package static func make(
        clientId: String, scenariosDirectory: String, scenario name: String, keysDirectory: String, now: Date,
        lifetime: Int = 3_600, keyId: String? = nil, teamId: String? = nil
    ) async throws -> String {
        let scenarios = try ScenarioLoader.loadDirectory(scenariosDirectory)
        guard let scenario = scenarios[name] else {
            throw Failure(
                description:
                    "no scenario \"\(name)\"; available: \(scenarios.keys.sorted().joined(separator: ", "))")
        }
        return try await make(
            clientId: clientId, world: World(scenario: scenario), keysDirectory: keysDirectory, now: now,
            lifetime: lifetime, keyId: keyId, teamId: teamId)
    }

    /// A secret for `clientId` signed with the first key of its team whose `.p8` is in `keysDirectory`.
    static func make(
        clientId: String, world: World, keysDirectory: String, now: Date, lifetime: Int = 3_600, keyId: String? = nil,
        teamId: String? = nil
    ) async throws -> String {
        guard let client = world.clients[clientId], let team = world.teams[teamId ?? client.teamId] else {
            throw Failure(
                description:
                    "no client \"\(clientId)\" (or team \(teamId ?? "of it")) in scenario \"\(world.scenario.name)\"; clients: \(world.clients.keys.sorted().joined(separator: ", "))"
            )
        }
        let candidates = team.developerKeys.map(\.keyId).filter { keyId == nil || $0 == keyId }
        guard
            let (kid, pem) = candidates.lazy.compactMap({ kid in
                (try? String(contentsOfFile: privateKeyPath(keyId: kid, keysDirectory: keysDirectory), encoding: .utf8))
                    .map { (kid, $0) }
            }).first
        else {
            throw Failure(
                description:
                    "no private key for team \(team.teamId) (keys \(candidates.joined(separator: ", "))) in \(keysDirectory)/developer/AuthKey_<KEYID>.p8"
            )
        }
        let issuedAt = Int(now.timeIntervalSince1970)
        return try await sign(
            Claims(
                iss: team.teamId, iat: issuedAt, exp: issuedAt + lifetime, aud: ClientSecretVerifier.audience,
                sub: clientId),
            pem: pem, keyId: kid)
    }

    /// Signs arbitrary client-secret claims (tests use it to make deliberately wrong secrets).
    static func sign(_ claims: some JWTPayload, pem: String, keyId: String) async throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let keys = JWTKeyCollection()
        await keys.add(
            ecdsa: try ES256PrivateKey(pem: pem), kid: JWKIdentifier(string: keyId),
            serializer: DefaultJWTSerializer(jsonEncoder: encoder))
        return try await keys.sign(claims, kid: JWKIdentifier(string: keyId))
    }
}
