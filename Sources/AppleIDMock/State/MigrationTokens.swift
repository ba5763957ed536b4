import Foundation

/// A team's access token from the `client_credentials` grant (`scope=user.migration`): an hour long,
/// reusable, bound to the client and the team whose secret obtained it.
public struct MigrationTokenRecord: Sendable {
    public var token: String
    public var clientId: String
    public var teamId: String
    public var expiresAt: Date
}

/// The bearer of a `/auth/usermigrationinfo` call, once checked.
public struct MigrationBearer: Sendable, Equatable {
    /// The team the token speaks for.
    public var teamId: String
}

extension SessionState {
    /// Stores a client-credentials token.
    public mutating func store(migrationToken record: MigrationTokenRecord) {
        migrationTokens[record.token] = record
    }

    /// Marks a user access token as used for migration (after a successful call).
    public mutating func spendForMigration(_ token: String) {
        if accessTokens[token] != nil { migrationSpentAccessTokens.insert(token) }
    }

    /// Checks a bearer token for `/auth/usermigrationinfo` (reference §8): a team token of this client,
    /// or a user access token of this client whose consent stands, single use for migration (spent by
    /// `spendForMigration` once the call succeeds). Both last an hour.
    public func migrationBearer(_ token: String, clientId: String, teamId: String, now: Date)
        throws(OAuthError) -> MigrationBearer
    {
        if let record = migrationTokens[token] {
            guard record.clientId == clientId, record.teamId == teamId else {
                throw .invalidRequest("the bearer token was issued to \(record.clientId) of team \(record.teamId)")
            }
            guard now < record.expiresAt else { throw .invalidGrant(nil, reason: "the bearer token expired") }
            return MigrationBearer(teamId: record.teamId)
        }
        if let record = accessTokens[token] {
            guard record.clientId == clientId else {
                throw .invalidRequest("the bearer token was issued to \(record.clientId)")
            }
            guard now < record.expiresAt,
                isStanding(userKey: record.userKey, appGroupId: record.appGroupId, generation: record.consentGeneration)
            else { throw .invalidGrant(nil, reason: "the user access token expired or its consent ended") }
            guard !migrationSpentAccessTokens.contains(token) else {
                throw .invalidGrant(nil, reason: "the user access token was already used for migration")
            }
            return MigrationBearer(teamId: teamId)
        }
        throw .invalidGrant(nil, reason: "unknown bearer token")
    }
}
