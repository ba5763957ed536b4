/// The identifiers a namespace with its own identities derives for its users that come back
/// without naming the namespace: relay addresses (by their part before the `@`, the same in every
/// relay domain) and `transfer_sub`s. Derived once per world (`NamespaceLocator` indexes them), so
/// mail to a relay address and a migration find their namespace without trying every namespace.
struct NamespaceIdentityKeys: Sendable, Equatable {
    /// What the keys are derived from: when a new world of the namespace has the same, they are not
    /// derived again (a clock move or a settings patch rebuilds the world, not its identities).
    struct Inputs: Sendable, Equatable {
        /// The namespace mixed into the identifiers (`nil`: the default's identifiers, none kept).
        var identityNamespace: String?
        var userKeys: [String]
        var teamIds: [String]
        /// Each transfer's teams.
        var transfers: [[String]]

        /// The inputs of `world`.
        init(_ world: World) {
            identityNamespace = world.identityNamespace
            userKeys = world.scenario.users.map(\.key)
            teamIds = world.teams.keys.sorted()
            transfers = world.transfers.keys.sorted().compactMap {
                world.transfers[$0].map { [$0.fromTeam, $0.toTeam] }
            }
        }
    }

    /// The relay addresses' parts before the `@`, lowercased.
    var relayLocalParts: Set<String> = []
    /// The `transfer_sub`s of every user in every transfer.
    var transferSubs: Set<String> = []

    /// No keys: a namespace with the default's identities (whose addresses are the default's).
    init() {}

    /// The keys of `world`: none unless its namespace has its own identities.
    init(_ world: World) {
        guard world.identityNamespace != nil else { return }
        for user in world.scenario.users {
            let key = world.identityKey(of: user)
            for teamId in world.teams.keys {
                relayLocalParts.insert(
                    DerivedIdentifiers.relayEmail(userKey: key, teamId: teamId, domain: .privaterelay)
                        .prefix { $0 != "@" }.lowercased())
            }
            for transfer in world.transfers.values {
                transferSubs.insert(
                    IdentifierDerivation.transferSubject(
                        userKey: key, fromTeam: transfer.fromTeam, toTeam: transfer.toTeam))
            }
        }
    }

    /// The key a relay address is indexed by: its part before the `@`, lowercased, when it is in
    /// a relay domain (`MockSettings.RelayDomain`).
    static func relayKey(of address: String) -> String? {
        let lowered = address.lowercased()
        guard let at = lowered.lastIndex(of: "@"),
            MockSettings.RelayDomain.allCases.contains(where: { $0.rawValue == lowered[lowered.index(after: at)...] })
        else { return nil }
        return String(lowered[..<at])
    }

    /// Whether a user of `world`, which has its own identities, has `transferSub` in one of its
    /// transfers.
    static func owns(_ world: World, transferSub: String) -> Bool {
        guard world.identityNamespace != nil else { return false }
        return world.transfers.values.contains { transfer in
            world.scenario.users.contains { user in
                IdentifierDerivation.transferSubject(
                    userKey: world.identityKey(of: user), fromTeam: transfer.fromTeam, toTeam: transfer.toTeam)
                    == transferSub
            }
        }
    }
}
