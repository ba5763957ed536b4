extension Namespaces {
    /// The world whose users own the relay address `address`: the default namespace's when its
    /// users do (a namespace with `identities: shared` has the same addresses, so mail to them
    /// reaches the default namespace), otherwise the namespace with its own identities whose user
    /// it is, found by the locator's index; the default namespace's for an address nobody owns (it
    /// records the refusal).
    func state(forRelayAddress address: String) async throws -> MockState {
        if try await defaultState.current().world.relayOwner(of: address) != nil { return defaultState }
        guard NamespaceIdentityKeys.relayKey(of: address) != nil else { return defaultState }
        let found = try await locate(
            { $0.name(ofRelayAddress: address) },
            confirmedBy: { $0.identityNamespace != nil && $0.relayOwner(of: address) != nil })
        return found ?? defaultState
    }
}
