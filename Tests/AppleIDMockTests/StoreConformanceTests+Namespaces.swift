import Foundation
import Testing

@testable import AppleIDMock

/// The namespace rules of the store, run on every store: namespaces on one base store (`ScopedStore`)
/// see only their own entries, codes and tokens by their tag, housekeeping spans them all, and the
/// durable stores keep them across a reopen.
extension StoreConformanceTests {
    /// Two namespaces and the default on `base`, with a directory that knows both.
    struct Worlds {
        let a = NamespaceScope(name: "team-a")
        let b = NamespaceScope(name: "team-b")
        let directory = NamespaceLocator()
        let base: any StateStore

        init(_ base: any StateStore) {
            self.base = base
            directory.insert(a)
            directory.insert(b)
        }

        func store(_ scope: NamespaceScope) -> ScopedStore {
            ScopedStore(base: base, scope: scope, directory: directory)
        }

        /// The keys of `space` as `scope` lists them, sorted.
        func keys<Value>(_ space: StoreSpace<Value>, in scope: NamespaceScope) async throws -> [String] {
            try await store(scope).transaction { try await $0.list(space).map(\.key) }.sorted()
        }
    }

    /// A code record keyed `code`.
    private func codeRecord(_ code: String) -> AuthorizationCodeRecord {
        AuthorizationCodeRecord(
            code: code, clientId: "com.example.web", appGroupId: "example", userKey: "maria", redirectUri: "https://r",
            nonce: nil, codeChallenge: nil, codeChallengeMethod: nil, issuedAt: now,
            expiresAt: now.addingTimeInterval(300), authTime: now, consentGeneration: 1, redeemedAt: nil)
    }

    @Test(
        "namespaces on one store see only their own entries: get, list, prune, deleteGroup, clear",
        arguments: TestPostgres.storeKinds)
    func namespacesApart(kind: StoreKind) async throws {
        try await kind.withFreshStore { base in
            let worlds = Worlds(base)
            let (a, b) = (worlds.a, worlds.b)
            let space = Spaces.deletedAccounts
            for (scope, offset) in [(NamespaceScope.default, 0.0), (a, 1), (b, 2)] {
                try await worlds.store(scope).transaction { transaction in
                    try await transaction.put(space, "same", Marker(at: now.addingTimeInterval(offset)))
                    for index in 0..<3 {
                        try await transaction.put(
                            space, "\(scope.name)-\(index)", Marker(at: now), index: EntryIndex(group: "g"))
                    }
                }
            }
            for (scope, offset) in [(NamespaceScope.default, 0.0), (a, 1), (b, 2)] {
                let same = try await worlds.store(scope).transaction { try await $0.get(space, "same") }
                #expect(same?.at == now.addingTimeInterval(offset), "\(scope.name)")
                let foreign = try await worlds.store(scope).transaction {
                    try await $0.get(space, scope == a ? "team-b-0" : "team-a-0")
                }
                #expect(foreign == nil, "\(scope.name)")
                #expect(
                    try await worlds.keys(space, in: scope)
                        == (["same"] + (0..<3).map { "\(scope.name)-\($0)" }).sorted(),
                    "\(scope.name)")
            }

            try await worlds.store(a).transaction { try await $0.prune(space, keep: 2) }
            #expect(try await worlds.keys(space, in: a).count == 2)
            #expect(try await worlds.keys(space, in: b).count == 4)
            #expect(try await worlds.keys(space, in: .default).count == 4)

            try await worlds.store(b).transaction { try await $0.deleteGroup("g", in: [space.name]) }
            #expect(try await worlds.keys(space, in: b) == ["same"])
            #expect(try await worlds.keys(space, in: .default).count == 4)
            #expect(try await worlds.keys(space, in: a).count == 2)

            try await worlds.store(.default).transaction { try await $0.clear([space.name]) }
            #expect(try await worlds.keys(space, in: .default).isEmpty)
            #expect(try await worlds.keys(space, in: b) == ["same"])
            #expect(try await worlds.keys(space, in: a).count == 2)
            let counts = try await worlds.store(b).entryCounts([space.name])
            #expect(counts[space.name] == 1)
        }
    }

    @Test("codes and tokens: each namespace sees only the values carrying its tag", arguments: TestPostgres.storeKinds)
    func issuedValuesByTag(kind: StoreKind) async throws {
        try await kind.withFreshStore { base in
            let worlds = Worlds(base)
            let (a, b) = (worlds.a, worlds.b)
            let codes = Dictionary(
                uniqueKeysWithValues: [NamespaceScope.default, a, b].map {
                    ($0.name, OpaqueToken.make(.code, tag: $0.tag))
                })
            for scope in [NamespaceScope.default, a, b] {
                let code = codes[scope.name]!
                try await worlds.store(scope).transaction { try await $0.put(Spaces.codes, code, codeRecord(code)) }
            }
            for scope in [NamespaceScope.default, a, b] {
                #expect(try await worlds.keys(Spaces.codes, in: scope) == [codes[scope.name]!], "\(scope.name)")
                for (owner, code) in codes {
                    let seen = try await worlds.store(scope).transaction { try await $0.get(Spaces.codes, code) }
                    #expect((seen != nil) == (owner == scope.name), "\(scope.name) reading \(owner)'s code")
                }
            }
            // Deleting another namespace's value does nothing; clearing clears only one's own.
            try await worlds.store(a).transaction { try await $0.delete(Spaces.codes, codes["team-b"]!) }
            #expect(try await worlds.keys(Spaces.codes, in: b) == [codes["team-b"]!])
            try await worlds.store(a).transaction { try await $0.clear([Spaces.codes.name]) }
            #expect(try await worlds.keys(Spaces.codes, in: a).isEmpty)
            #expect(try await worlds.keys(Spaces.codes, in: b) == [codes["team-b"]!])
            #expect(try await worlds.keys(Spaces.codes, in: .default) == [codes["default"]!])
            try await worlds.store(.default).transaction { try await $0.clear([Spaces.codes.name]) }
            #expect(try await worlds.keys(Spaces.codes, in: .default).isEmpty)
            #expect(try await worlds.keys(Spaces.codes, in: b) == [codes["team-b"]!])
        }
    }

    @Test("claimDue returns every namespace's due entries with their stored space", arguments: TestPostgres.storeKinds)
    func claimDueAcrossNamespaces(kind: StoreKind) async throws {
        try await kind.withFreshStore { base in
            let worlds = Worlds(base)
            let wall = Date()
            for scope in [NamespaceScope.default, worlds.a, worlds.b] {
                try await worlds.store(scope).transaction { transaction in
                    for index in 0..<3 {
                        try await transaction.put(
                            Spaces.deletedAccounts, "due-\(index)", Marker(at: now), index: EntryIndex(dueAt: wall))
                    }
                }
            }
            let claimed = try await worlds.store(worlds.a).claimDue(
                Spaces.deletedAccounts, now: wall, leaseUntil: wall.addingTimeInterval(60), limit: 50, mark: { _ in })
            let bySpace = Dictionary(claimed.map { ($0.space, [$0.key]) }, uniquingKeysWith: +)
            #expect(
                bySpace.mapValues { $0.sorted() }
                    == [
                        "deleted_account": ["due-0", "due-1", "due-2"],
                        "team-a/deleted_account": ["due-0", "due-1", "due-2"],
                        "team-b/deleted_account": ["due-0", "due-1", "due-2"],
                    ])
            #expect(
                Set(claimed.map { NamespaceScope.namespace(ofStoredSpace: $0.space) })
                    == ["default", "team-a", "team-b"])
        }
    }

    @Test(
        "durable stores keep every namespace's entries and tagged values across a reopen",
        arguments: TestPostgres.storeKinds.filter { $0 != .memory })
    func namespacesDurable(kind: StoreKind) async throws {
        let location =
            kind == .sqlite
            ? "sqlite:" + TestPaths.temporaryFile("state.sqlite") : try await TestPostgres.freshDatabase()
        let a = NamespaceScope(name: "team-a")
        let code = OpaqueToken.make(.code, tag: a.tag)
        try await Self.withStore(location) { (base: any StateStore) async throws in
            let worlds = Worlds(base)
            try await worlds.store(a).transaction { transaction in
                try await transaction.put(Spaces.deletedAccounts, "kept", Marker(at: now))
                try await transaction.put(Spaces.codes, code, codeRecord(code))
            }
        }
        try await Self.withStore(location) { (base: any StateStore) async throws in
            let worlds = Worlds(base)
            #expect(try await worlds.keys(Spaces.deletedAccounts, in: a) == ["kept"])
            #expect(try await worlds.keys(Spaces.codes, in: a) == [code])
            #expect(try await worlds.keys(Spaces.deletedAccounts, in: worlds.b).isEmpty)
            #expect(try await worlds.keys(Spaces.codes, in: .default).isEmpty)
        }
    }

    /// Opens the durable store at `location` (a new connection for PostgreSQL), runs `body`, closes it.
    static func withStore(_ location: String, _ body: (any StateStore) async throws -> Void) async throws {
        if location.hasPrefix("sqlite:") {
            let opened = try await StoreOpener.open(
                try StoreLocation(parsing: location), logger: TestPostgres.quietLogger)
            do {
                try await body(opened.store)
            } catch {
                await opened.close()
                throw error
            }
            await opened.close()
        } else {
            try await TestPostgres.withStore(url: location, body)
        }
    }
}
