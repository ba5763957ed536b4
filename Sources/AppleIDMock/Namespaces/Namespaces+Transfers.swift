extension Namespaces {
    /// The world of the namespace with its own identities that derived `transferSub` for one of
    /// its users in one of its transfers, if any (the default namespace's and shared ones' are the
    /// default's: `nil`).
    func state(forTransferSub transferSub: String) async throws -> MockState? {
        for state in try await allStates().dropFirst() {
            guard let world = try? await state.current().world, world.identityNamespace != nil else { continue }
            for transfer in world.transfers.values {
                let match = world.scenario.users.contains { user in
                    IdentifierDerivation.transferSubject(
                        userKey: world.identityKey(of: user), fromTeam: transfer.fromTeam, toTeam: transfer.toTeam)
                        == transferSub
                }
                if match { return state }
            }
        }
        return nil
    }
}
