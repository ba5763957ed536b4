/// The `sub` and relay address of (user, team) pairs, derived once per process (an HMAC each) and
/// then looked up: every id_token and most journal entries need them. They depend on the pair only,
/// so one memo serves every world. Bounded: past `capacity` it starts over.
enum DerivedIdentifiers {
    /// A pair's identifiers.
    private struct Pair: Hashable {
        var userKey: String
        var teamId: String
    }

    private static let subjects = BoundedCache<Pair, String>(capacity: 10_000)
    private static let relays = BoundedCache<Pair, String>(capacity: 10_000)

    /// The team-scoped `sub` of a user.
    static func subject(userKey: String, teamId: String) -> String {
        subjects.value(for: Pair(userKey: userKey, teamId: teamId)) {
            IdentifierDerivation.subject(userKey: userKey, teamId: teamId)
        }
    }

    /// The relay address of a user for a team, in `domain`.
    static func relayEmail(userKey: String, teamId: String, domain: MockSettings.RelayDomain) -> String {
        let local = relays.value(for: Pair(userKey: userKey, teamId: teamId)) {
            IdentifierDerivation.relayLocalPart(userKey: userKey, teamId: teamId)
        }
        return local + "@" + domain.rawValue
    }
}
