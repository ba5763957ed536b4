/// Reads across namespaces, each on every namespace's control record read in one step
/// (`EveryNamespace`).
extension Namespaces {
    /// The keys every namespace publishes now (on its own clock), each `kid` once, the default
    /// namespace's (as `home`, its state in force, has them) first: what `/auth/keys` without a
    /// namespace publishes, so that a backend on Apple's URLs verifies tokens from any namespace.
    /// The namespaces that never changed their keys publish the same shared `kid`s; a key a
    /// namespace unpublished is under a `kid` of its own, which stays out.
    func publishedEverywhere(home: ActiveScenario) async throws -> ResolvedKeys {
        let others = try await otherKeys.keys {
            try await self.readOtherKeys()
        }
        var keys = home.keys.entries.filter { $0.entry.isPublished(at: home.now) }
        var seen = Set(keys.map(\.entry.kid))
        for other in others.published(base: defaultState.clock.now()) where seen.insert(other.entry.kid).inserted {
            keys.append(other)
        }
        return ResolvedKeys(signing: home.keys.signing, entries: keys)
    }

    /// Reads every other namespace's control record in one step: which keep the shared keys, and
    /// the keys marked published of those that changed theirs (generated ones parsed once).
    private func readOtherKeys() async throws -> OtherNamespacesKeys {
        let state = defaultState
        let ring = state.catalog.keyRing
        // For each namespace: whether it keeps the shared keys, or its keys if it changed them (a
        // namespace whose record is missing, deleted while the step ran, publishes nothing).
        let read = try await everyNamespace.eachControl { scope, control, own -> (Bool, OtherNamespacesKeys.Changed?) in
            guard let control else { return (false, nil) }
            guard let roster = control.keys else { return (true, nil) }
            var keys: [(entry: KeyRoster.Entry, key: SigningKey)] = []
            for entry in roster.entries where entry.published {
                let key: SigningKey?
                switch entry.origin {
                case .bundled: key = state.keyCache.bundledKey(entry.kid, in: scope, ring: ring)
                case .generated:
                    key = try await state.keyCache.key(entry.kid) {
                        try await own.get(Spaces.generatedKeys, entry.kid)?.pem
                    }
                }
                if let key { keys.append((entry, key)) }
            }
            return (false, OtherNamespacesKeys.Changed(control: control, keys: keys))
        }
        return OtherNamespacesKeys(
            shared: read.contains { $0.0 } ? state.keyCache.sharedKeys(ring) : [], changed: read.compactMap(\.1))
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
