import Foundation

/// A team's access token from the `client_credentials` grant (`scope=user.migration`): an hour long,
/// reusable, bound to the client and the team whose secret obtained it.
public struct MigrationTokenRecord: Sendable, Codable {
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
