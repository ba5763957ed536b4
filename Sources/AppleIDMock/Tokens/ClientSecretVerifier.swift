import JWTKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Checks a `client_secret` as Apple does (reference §2.2): an ES256 JWT whose `kid` is a registered
/// key of the client's team, `iss` = Team ID, `sub` = `client_id`, `aud` = `https://appleid.apple.com`,
/// `exp` in the future and at most 15,777,000 s after `iat`, `iat` not in the future beyond a leeway.
/// Any failure is a bare `invalid_client`; the precise reason goes to the log. A signature that
/// verified is remembered per secret string (`VerifiedSecrets`); the other rules run every time.
struct ClientSecretVerifier: Sendable {
    /// The longest lifetime Apple accepts, in seconds (about six months).
    static let maximumLifetime: Double = 15_777_000
    /// The audience Apple requires.
    static let audience = "https://appleid.apple.com"

    private let keys: JWTKeyCollection
    private let keyOwners: [String: String]
    /// Secrets whose signature verified, in the current epoch.
    let verified = VerifiedSecrets()

    /// Registers every developer key of the scenario's teams.
    init(scenario: Scenario) async {
        let keys = JWTKeyCollection()
        var owners: [String: String] = [:]
        for team in scenario.teams {
            for key in team.developerKeys {
                await keys.add(ecdsa: key.publicKey, kid: JWKIdentifier(string: key.keyId))
                owners[key.keyId] = team.teamId
            }
        }
        self.keys = keys
        self.keyOwners = owners
    }

    /// Verifies `secret` for `client` at `now`, signed by one of `teams` (the owner, and during a
    /// migration window the previous owner); returns the signing team. `epoch` is the control
    /// record's: a signature verified in an earlier epoch is verified again. The secret's key and
    /// its owner are noted in `journal`.
    @discardableResult
    func verify(
        _ secret: String, for client: World.Client, teams: [String], now: Date, iatLeeway: Int, epoch: Int = 0,
        journal: JournalDraft? = nil
    ) async throws(AppleError) -> String {
        let entry: VerifiedSecrets.Entry
        if let known = verified.entry(secret, epoch: epoch) {
            entry = known
        } else {
            entry = try await verifySignature(secret, journal: journal)
            verified.remember(secret, entry, epoch: epoch)
        }
        let kid = entry.kid
        journal?.note(secretKeyId: kid, teamId: keyOwners[kid])
        guard let team = keyOwners[kid], teams.contains(team) else {
            throw .invalidClient("kid \(kid) is not a registered key of team \(teams.joined(separator: " or "))")
        }
        try check(entry.claims, client: client, team: team, now: now.timeIntervalSince1970, leeway: Double(iatLeeway))
        return team
    }

    /// Checks the header and the ES256 signature by a registered developer key, and reads the claims.
    private func verifySignature(_ secret: String, journal: JournalDraft?) async throws(AppleError)
        -> VerifiedSecrets.Entry
    {
        let parts = secret.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .invalidClient("client_secret is not a compact JWT") }
        guard let headerData = Data(base64URLEncoded: parts[0]),
            let header = try? JSONDecoder().decode(Header.self, from: headerData)
        else { throw .invalidClient("client_secret header is not base64url JSON") }
        // jwt-kit would fall back to another key for an unknown kid and does not compare alg with the
        // key, so both are checked here first, as Apple checks them.
        guard header.alg == "ES256" else {
            throw .invalidClient("client_secret alg must be ES256, found \(header.alg ?? "none")")
        }
        guard let kid = header.kid else { throw .invalidClient("client_secret header has no kid") }
        guard keyOwners[kid] != nil else {
            journal?.note(secretKeyId: kid, teamId: nil)
            throw .invalidClient("kid \(kid) is not a registered developer key of any team")
        }
        do {
            return VerifiedSecrets.Entry(kid: kid, claims: try await keys.verify(secret, as: ClientSecretClaims.self))
        } catch {
            journal?.note(secretKeyId: kid, teamId: keyOwners[kid])
            throw .invalidClient("client_secret signature or payload is invalid: \(error)")
        }
    }

    private func check(_ claims: ClientSecretClaims, client: World.Client, team: String, now: Double, leeway: Double)
        throws(AppleError)
    {
        guard claims.iss == team else {
            throw .invalidClient("iss \(claims.iss ?? "none") is not team \(team)")
        }
        guard claims.sub == client.id else {
            throw .invalidClient("sub \(claims.sub ?? "none") is not client_id \(client.id)")
        }
        guard claims.aud == [Self.audience] else {
            throw .invalidClient("aud must be \(Self.audience), found \(claims.aud?.joined(separator: ",") ?? "none")")
        }
        guard let iat = claims.iat, let exp = claims.exp else { throw .invalidClient("iat and exp are required") }
        // Any epoch beyond ±10^12 s is garbage; refusing it first keeps the arithmetic below finite.
        guard abs(iat) < 1e12, abs(exp) < 1e12 else { throw .invalidClient("iat or exp is not a plausible epoch time") }
        guard iat <= now + leeway else { throw .invalidClient("iat is \(Int(iat - now)) s in the future") }
        guard exp > now else { throw .invalidClient("client_secret expired \(Int(now - exp)) s ago") }
        guard exp - iat <= Self.maximumLifetime else {
            throw .invalidClient("exp - iat is \(Int(exp - iat)) s, over the 15777000 s maximum")
        }
    }

    /// The two header fields Apple's check needs.
    private struct Header: Decodable {
        var alg: String?
        var kid: String?
    }
}

/// The claims of a `client_secret`, decoded loosely so each rule can be checked (and logged) in turn.
struct ClientSecretClaims: JWTPayload {
    var iss: String?
    var sub: String?
    var aud: [String]?
    var iat: Double?
    var exp: Double?

    /// The JSON names of the fields.
    private enum CodingKeys: String, CodingKey {
        case iss, sub, aud, iat, exp
    }

    init(iss: String? = nil, sub: String? = nil, aud: [String]? = nil, iat: Double? = nil, exp: Double? = nil) {
        (self.iss, self.sub, self.aud, self.iat, self.exp) = (iss, sub, aud, iat, exp)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        iss = try? container.decodeIfPresent(String.self, forKey: .iss)
        sub = try? container.decodeIfPresent(String.self, forKey: .sub)
        if let single = try? container.decodeIfPresent(String.self, forKey: .aud) {
            aud = [single]
        } else {
            aud = try? container.decodeIfPresent([String].self, forKey: .aud)
        }
        iat = try? container.decodeIfPresent(Double.self, forKey: .iat)
        exp = try? container.decodeIfPresent(Double.self, forKey: .exp)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(iss, forKey: .iss)
        try container.encodeIfPresent(sub, forKey: .sub)
        try container.encodeIfPresent(aud, forKey: .aud)
        try container.encodeIfPresent(iat, forKey: .iat)
        try container.encodeIfPresent(exp, forKey: .exp)
    }

    /// Time rules need the mock's clock, so they are checked by `ClientSecretVerifier`, not here.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
