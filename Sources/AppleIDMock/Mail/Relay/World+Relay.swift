/// Finding the owner of a relay address in a world.
extension World {
    /// The relay domain the mock mints addresses in.
    static let relayDomain = "privaterelay.appleid.com"

    /// The user and team whose relay address `address` is (compared without case), in any relay
    /// domain (`MockSettings.RelayDomain`): mail for both domains reaches the user.
    func relayOwner(of address: String) -> (user: User, teamId: String)? {
        let lowered = address.lowercased()
        guard MockSettings.RelayDomain.allCases.contains(where: { lowered.hasSuffix("@" + $0.rawValue) }) else {
            return nil
        }
        for user in scenario.users {
            for teamId in teams.keys.sorted() where isRelayEmail(lowered, of: user, teamId: teamId) {
                return (user, teamId)
            }
        }
        return nil
    }
}
