/// `GET /__admin/scenario`: the active scenario as loaded, with each user's derived `sub` and relay
/// address for every team, so testers can see the identifiers their backend will receive.
struct ScenarioView: Encodable, Sendable {
    /// A team as shown: id, name, developer key ids and registered email senders.
    struct TeamView: Encodable, Sendable {
        var teamId: String
        var name: String
        var developerKeyIds: [String]
        var emailSources = EmailSources()
    }

    /// A Services ID and its return URLs.
    struct ServicesView: Encodable, Sendable {
        var identifier: String
        var redirectUris: [String]
    }

    /// An app group as shown, with its current owner.
    struct AppGroupView: Encodable, Sendable {
        var id: String
        var teamId: String
        var primaryBundleId: String
        var bundleIds: [String]
        var servicesIds: [ServicesView]
        var notificationUrl: String?
    }

    /// A user's identifiers for one team.
    struct IdentityView: Encodable, Sendable {
        var teamId: String
        var sub: String
        var relayEmail: String
    }

    /// A user as shown, with identifiers for every team.
    struct UserView: Encodable, Sendable {
        var key: String
        var email: String
        var name: PersonName?
        var hideEmail: Bool
        var realUserStatus: Int
        var emailVerified: Bool
        var managedAccount: Bool
        var orgId: String?
        var identities: [IdentityView]
    }

    var name: String
    var description: String
    var source: String
    var signingKeyId: String
    var settings: MockSettings
    var teams: [TeamView]
    var appGroups: [AppGroupView]
    var users: [UserView]
    /// App groups moved to another team (their `teamId` above is the new owner).
    var transfers: [AppTransfer]

    init(world: World, signingKeyId: String) {
        transfers = world.transfers.values.sorted { $0.appGroupId < $1.appGroupId }
        let scenario = world.scenario
        name = scenario.name
        description = scenario.description
        source = scenario.source
        self.signingKeyId = signingKeyId
        settings = scenario.settings
        teams = scenario.teams.map {
            TeamView(
                teamId: $0.teamId, name: $0.name, developerKeyIds: $0.developerKeys.map(\.keyId),
                emailSources: $0.emailSources)
        }
        appGroups = scenario.appGroups.map { group in
            AppGroupView(
                id: group.id, teamId: group.teamId, primaryBundleId: group.primaryBundleId, bundleIds: group.bundleIds,
                servicesIds: group.servicesIds.map {
                    ServicesView(identifier: $0.identifier, redirectUris: $0.redirectUris)
                },
                notificationUrl: group.notificationUrl)
        }
        users = scenario.users.map { user in
            UserView(
                key: user.key, email: user.email, name: user.name, hideEmail: user.hideEmail,
                realUserStatus: user.realUserStatus, emailVerified: user.emailVerified,
                managedAccount: user.managedAccount, orgId: user.orgId,
                identities: scenario.teams.map { team in
                    IdentityView(
                        teamId: team.teamId, sub: world.subject(of: user, teamId: team.teamId),
                        relayEmail: world.relayEmail(of: user, teamId: team.teamId))
                })
        }
    }
}
