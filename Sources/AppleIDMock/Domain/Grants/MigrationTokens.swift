#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A team's access token from the `client_credentials` grant (`scope=user.migration`): an hour long,
/// reusable, bound to the client and the team whose secret obtained it.
struct MigrationTokenRecord: Sendable, Codable {
    var token: String
    var clientId: String
    var teamId: String
    var expiresAt: Date
}

/// The bearer of a `/auth/usermigrationinfo` call, once checked.
struct MigrationBearer: Sendable, Equatable {
    /// The team the token speaks for.
    var teamId: String
}
