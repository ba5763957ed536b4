extension Namespaces {
    /// The world whose users own the relay address `address`: the default namespace's when its
    /// users do (a namespace with `identities: shared` has the same addresses, so mail to them
    /// reaches the default namespace), otherwise the namespace with its own identities whose user
    /// it is; the default namespace's for an address nobody owns (it records the refusal).
    func state(forRelayAddress address: String) async throws -> MockState {
        if try await defaultState.current().world.relayOwner(of: address) != nil { return defaultState }
        for state in try await allStates().dropFirst() {
            guard let active = try? await state.current(), active.world.identityNamespace != nil else { continue }
            if active.world.relayOwner(of: address) != nil { return state }
        }
        return defaultState
    }
}
