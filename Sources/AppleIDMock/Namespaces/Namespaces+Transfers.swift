extension Namespaces {
    /// The world of the namespace with its own identities that derived `transferSub` for one of
    /// its users in one of its transfers, found by the locator's index, if any (the default
    /// namespace's and shared ones' are the default's: `nil`).
    func state(forTransferSub transferSub: String) async throws -> MockState? {
        try await locate(
            { $0.name(ofTransferSub: transferSub) },
            confirmedBy: { NamespaceIdentityKeys.owns($0, transferSub: transferSub) })
    }
}
