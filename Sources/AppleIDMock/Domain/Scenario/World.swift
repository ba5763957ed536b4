#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A scenario with its lookups built: which app group and team each `client_id` belongs to, users by
/// key and email, and each user's derived identifiers. Immutable; replaced whole on a scenario switch.
final class World: Sendable {
    /// A registered `client_id`: an App ID (native) or a Services ID (web).
    struct Client: Sendable {
        /// What kind of identifier it is.
        enum Kind: Sendable, Equatable {
            /// A bundle id: native sign-in, no return URLs.
            case app
            /// A Services ID with its registered return URLs.
            case services(redirectUris: [String])
        }

        /// The `client_id`.
        var id: String
        /// App or Services ID.
        var kind: Kind
        /// The app group it belongs to.
        var appGroupId: String
        /// The team that owns the group.
        var teamId: String
    }

    /// The scenario this world was built from.
    let scenario: Scenario
    /// Teams by Team ID.
    let teams: [String: Team]
    /// App groups by id.
    let appGroups: [String: AppGroup]
    /// Clients by `client_id`.
    let clients: [String: Client]
    /// Users by key.
    let users: [String: User]
    /// Transfers that happened, by app group id.
    let transfers: [String: AppTransfer]
    /// The namespace mixed into every derived identifier (`identities: own`), or `nil` for the
    /// default namespace's identifiers.
    let identityNamespace: String?

    /// The world of `scenario` after `transfers`: each transferred group belongs to its new team.
    init(scenario: Scenario, transfers: [AppTransfer] = [], identityNamespace: String? = nil) {
        self.identityNamespace = identityNamespace
        var scenario = scenario
        for transfer in transfers {
            for index in scenario.appGroups.indices where scenario.appGroups[index].id == transfer.appGroupId {
                scenario.appGroups[index].teamId = transfer.toTeam
            }
        }
        self.scenario = scenario
        self.transfers = Dictionary(transfers.map { ($0.appGroupId, $0) }, uniquingKeysWith: { _, last in last })
        teams = Dictionary(scenario.teams.map { ($0.teamId, $0) }, uniquingKeysWith: { first, _ in first })
        appGroups = Dictionary(scenario.appGroups.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        users = Dictionary(scenario.users.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        var clients: [String: Client] = [:]
        for group in scenario.appGroups {
            for bundle in [group.primaryBundleId] + group.bundleIds {
                clients[bundle] = Client(id: bundle, kind: .app, appGroupId: group.id, teamId: group.teamId)
            }
            for services in group.servicesIds {
                clients[services.identifier] = Client(
                    id: services.identifier, kind: .services(redirectUris: services.redirectUris),
                    appGroupId: group.id, teamId: group.teamId)
            }
        }
        self.clients = clients
    }

    /// The behaviour switches of this world.
    var settings: MockSettings { scenario.settings }

    /// The user named by a key, a real email, or a team-scoped `sub` or relay address of any team.
    func user(matching hint: String) -> User? {
        if let user = users[hint] { return user }
        let lowered = hint.lowercased()
        return scenario.users.first { user in
            if !user.email.isEmpty, user.email.lowercased() == lowered { return true }
            return teams.keys.contains { teamId in
                subject(of: user, teamId: teamId) == hint || isRelayEmail(lowered, of: user, teamId: teamId)
            }
        }
    }

    /// The user whose `sub` in team `teamId` is `sub`, if any.
    func user(withSubject sub: String, teamId: String) -> User? {
        scenario.users.first { subject(of: $0, teamId: teamId) == sub }
    }

    /// The user's team-scoped `sub`.
    func subject(of user: User, teamId: String) -> String {
        DerivedIdentifiers.subject(userKey: identityKey(of: user), teamId: teamId)
    }

    /// What a user's derived identifiers (`sub`, relay addresses, `transfer_sub`) are derived from:
    /// the user's key, with the namespace mixed in when the namespace has its own identities.
    func identityKey(of user: User) -> String {
        identityNamespace.map { "\($0)\u{0}\(user.key)" } ?? user.key
    }

    /// The transfer of the client's group whose migration window is open at `now`.
    func openTransfer(of appGroupId: String, at now: Date) -> AppTransfer? {
        guard let transfer = transfers[appGroupId], transfer.isOpen(at: now, days: settings.migrationWindowDays) else {
            return nil
        }
        return transfer
    }

    /// The teams whose client secrets a client accepts at `now`: its owner, and during the migration
    /// window the team it was transferred from.
    func acceptedTeams(for client: Client, at now: Date) -> [String] {
        [client.teamId] + (openTransfer(of: client.appGroupId, at: now).map { [$0.fromTeam] } ?? [])
    }

    /// The user's relay address for a team, in the relay domain of the settings (`relayDomain`).
    func relayEmail(of user: User, teamId: String) -> String {
        DerivedIdentifiers.relayEmail(userKey: identityKey(of: user), teamId: teamId, domain: settings.relayDomain)
    }

    /// Whether `lowered` (a lowercased address) is the user's relay address for a team in any relay
    /// domain: addresses handed out before `relayDomain` changed keep reaching the user.
    func isRelayEmail(_ lowered: String, of user: User, teamId: String) -> Bool {
        MockSettings.RelayDomain.allCases.contains {
            DerivedIdentifiers.relayEmail(userKey: identityKey(of: user), teamId: teamId, domain: $0) == lowered
        }
    }
}
