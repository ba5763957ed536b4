/// Finding the owner of a relay address in a world.
extension World {
    /// The relay domain the mock mints addresses in.
    static let relayDomain = "privaterelay.appleid.com"

    /// The user and team whose relay address `address` is (compared without case).
    func relayOwner(of address: String) -> (user: User, teamId: String)? {
        let lowered = address.lowercased()
        guard lowered.hasSuffix("@" + Self.relayDomain) else { return nil }
        for user in scenario.users {
            for teamId in teams.keys.sorted() where relayEmail(of: user, teamId: teamId) == lowered {
                return (user, teamId)
            }
        }
        return nil
    }
}
