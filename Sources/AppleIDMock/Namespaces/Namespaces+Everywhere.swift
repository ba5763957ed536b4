/// Reads across namespaces, each on every namespace's control record read in one step
/// (`EveryNamespace`).
extension Namespaces {
    /// The keys every namespace publishes now (on its own clock), each `kid` once, the default
    /// namespace's first: what `/auth/keys` without a namespace publishes, so that a backend on
    /// Apple's URLs verifies tokens from any namespace. The namespaces that never changed their keys
    /// publish the same shared `kid`s; a key a namespace unpublished is under a `kid` of its own,
    /// which stays out.
    func publishedEverywhere() async throws -> ResolvedKeys {
        let home = try await defaultState.current()
        let state = defaultState
        let base = state.clock.now()
        var keys = home.keys.entries.filter { $0.entry.isPublished(at: home.now) }
        var seen = Set(keys.map(\.entry.kid))
        let others = try await everyNamespace.eachControl { scope, control, own in
            var found: [(entry: KeyRoster.Entry, key: SigningKey)] = []
            guard let control else { return found }
            let now = control.now(base: base)
            let roster =
                control.keys
                ?? KeyRoster.bundled(state.catalog.keyRing, signingKid: "").renamed(NamespaceScope.sharedKid)
            for entry in roster.entries where entry.isPublished(at: now) {
                let key: SigningKey?
                switch entry.origin {
                case .bundled: key = state.keyCache.bundledKey(entry.kid, in: scope, ring: state.catalog.keyRing)
                case .generated:
                    key = try await state.keyCache.key(entry.kid) {
                        try await own.get(Spaces.generatedKeys, entry.kid)?.pem
                    }
                }
                var published = entry
                published.retiresAt = nil  // checked on the namespace's own clock
                if let key { found.append((published, key)) }
            }
            return found
        }
        for other in others.joined() where seen.insert(other.entry.kid).inserted { keys.append(other) }
        return ResolvedKeys(signing: home.keys.signing, entries: keys)
    }

    /// The control records of `scopes`, in one step (`nil` where a namespace has none).
    func controls(of scopes: [NamespaceScope]) async throws -> [ControlState?] {
        try await everyNamespace.eachControl(scopes) { _, control, _ in control }
    }

    /// Deletes codes and tokens that expired in every namespace. The store sweeps by one instant
    /// for all, so by the earliest of the namespaces' clocks (one may be behind another); each
    /// namespace still refuses its values once they expired on its own clock.
    func sweep() async throws -> Int {
        let base = defaultState.clock.now()
        let nows = try await everyNamespace.eachControl(includingDefault: true) { _, control, _ in
            control?.now(base: base)
        }
        var earliest = nows.first.flatMap { $0 } ?? base
        for case let now? in nows.dropFirst() where now < earliest { earliest = now }
        return try await defaultState.store.sweep(expiredBefore: earliest)
    }
}
