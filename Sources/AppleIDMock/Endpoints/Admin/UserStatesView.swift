#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `GET /__admin/users`: every user of the active scenario with what each app group sees of them now:
/// the `sub` and relay address of the group's current team, the consent (state, frozen scopes,
/// Hide My Email choice, relay forwarding), the credential state an app would get, and whether the
/// next sign-in is a first one (the one that sends the name and email).
struct UserStatesView: Encodable, Sendable {
    /// A consent record as shown.
    struct ConsentState: Encodable, Sendable {
        var status: Consent.Status
        var scopes: [String]
        var hidesEmail: Bool
        var authorizedAt: Date
        var revokedAt: Date?
    }

    /// One user as one app group sees them.
    struct AppGroupState: Encodable, Sendable {
        var appGroupId: String
        var teamId: String
        var sub: String
        var relayEmail: String
        /// What `getCredentialState(forUserID:)` answers.
        var credentialState: CredentialState
        /// Whether the next authorization is a first one (user JSON with the name and email).
        var firstAuthorization: Bool
        /// The consent record, standing or revoked; absent if the user never signed in here.
        var consent: ConsentState?
        /// Whether mail to the relay address is forwarded (only for Hide My Email consents with email).
        var relayForwarding: Bool?
    }

    /// A user and their state with every app group.
    struct UserState: Encodable, Sendable {
        var key: String
        var name: PersonName?
        var email: String
        var hideEmail: Bool
        var realUserStatus: Int
        var emailVerified: Bool
        var managedAccount: Bool
        var accountDeleted: Bool
        var identities: [ScenarioView.IdentityView]
        var appGroups: [AppGroupState]
    }

    var users: [UserState]

    /// The view of `world` given the stored records: consents by `Session.consentKey`, deleted
    /// accounts by user key, and the consent keys whose relay forwarding is off.
    init(world: World, consents: [String: Consent], deletedAccounts: Set<String>, relayOff: Set<String>) {
        let scenario = world.scenario
        users = scenario.users.map { user in
            let deleted = deletedAccounts.contains(user.key)
            return UserState(
                key: user.key, name: user.name, email: user.email, hideEmail: user.hideEmail,
                realUserStatus: user.realUserStatus, emailVerified: user.emailVerified,
                managedAccount: user.managedAccount, accountDeleted: deleted,
                identities: scenario.teams.map {
                    ScenarioView.IdentityView(
                        teamId: $0.teamId, sub: world.subject(of: user, teamId: $0.teamId),
                        relayEmail: world.relayEmail(of: user, teamId: $0.teamId))
                },
                appGroups: scenario.appGroups.map { group in
                    let key = Session.consentKey(user.key, group.id)
                    let consent = consents[key]
                    let forwarding =
                        consent.map { $0.grantsEmail && $0.hidesEmail } == true
                        ? !relayOff.contains(key) && !deleted : nil  // as `Session.relayForwarding`
                    return AppGroupState(
                        appGroupId: group.id, teamId: group.teamId, sub: world.subject(of: user, teamId: group.teamId),
                        relayEmail: world.relayEmail(of: user, teamId: group.teamId),
                        credentialState: GrantRules.credentialState(consent: consent, accountDeleted: deleted),
                        firstAuthorization: GrantRules.isFirstAuthorization(consent, accountDeleted: deleted),
                        consent: consent.map {
                            ConsentState(
                                status: $0.status, scopes: $0.scopes, hidesEmail: $0.hidesEmail,
                                authorizedAt: $0.authorizedAt, revokedAt: $0.revokedAt)
                        },
                        relayForwarding: forwarding)
                })
        }
    }
}
