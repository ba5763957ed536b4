import Synchronization

/// The `sub` and relay address of (user, team) pairs, derived once (an HMAC each) and then looked
/// up: every id_token and most journal entries need them. Bounded: past `capacity` it starts over.
final class DerivedIdentifiers: Sendable {
    /// A pair's identifiers.
    private struct Pair: Hashable {
        var userKey: String
        var teamId: String
    }

    private let subjects = Mutex<[Pair: String]>([:])
    private let relays = Mutex<[Pair: String]>([:])
    private let capacity = 10_000

    /// The team-scoped `sub` of a user.
    func subject(userKey: String, teamId: String) -> String {
        remembered(in: subjects, Pair(userKey: userKey, teamId: teamId)) {
            IdentifierDerivation.subject(userKey: userKey, teamId: teamId)
        }
    }

    /// The relay address of a user for a team.
    func relayEmail(userKey: String, teamId: String) -> String {
        remembered(in: relays, Pair(userKey: userKey, teamId: teamId)) {
            IdentifierDerivation.relayEmail(userKey: userKey, teamId: teamId)
        }
    }

    private func remembered(in table: borrowing Mutex<[Pair: String]>, _ pair: Pair, derive: () -> String) -> String {
        if let known = table.withLock({ $0[pair] }) { return known }
        let value = derive()
        table.withLock { table in
            if table.count >= capacity { table.removeAll() }
            table[pair] = value
        }
        return value
    }
}
