import Crypto
import Foundation
import Testing

@testable import AppleIDMock

/// The store rules, run on every store: the same steps give the same outcomes in memory, in SQLite
/// and in PostgreSQL.
@Suite("Store conformance")
struct StoreConformanceTests {
    let now = Fixture.start

    private func newCode(_ session: Session, generation: Int, code: String = OpaqueToken.make(.code)) async throws
        -> String
    {
        try await session.store(
            code: AuthorizationCodeRecord(
                code: code, clientId: "com.example.web", appGroupId: "example", userKey: "maria",
                redirectUri: "https://r", nonce: nil, codeChallenge: nil, codeChallengeMethod: nil, issuedAt: now,
                expiresAt: now.addingTimeInterval(300), authTime: now, consentGeneration: generation, redeemedAt: nil))
        return code
    }

    private func authorize(_ session: Session, scopes: [String] = ["email"], hides: Bool = false) async throws
        -> (consent: Consent, isFirst: Bool)
    {
        try await session.authorize(
            userKey: "maria", appGroupId: "example", scopes: scopes, hidesEmail: hides, now: now)
    }

    private func redeem(_ store: any StateStore, _ code: String, at time: Date? = nil) async -> AppleError? {
        let now = time ?? self.now
        do {
            _ = try await store.transaction { transaction in
                try await Session(transaction: transaction).redeem(
                    code: code, clientId: "com.example.web", redirectUri: "https://r", codeVerifier: nil, pkce: .strict,
                    now: now)
            }
            return nil
        } catch {
            return error as? AppleError
        }
    }

    @Test("the first authorization is first; later ones reuse the frozen consent", arguments: TestPostgres.storeKinds)
    func consentFrozen(kind: StoreKind) async throws {
        try await kind.withFreshStore { store in
            let (first, second) = try await store.transaction { transaction in
                let session = Session(transaction: transaction)
                return (try await authorize(session, scopes: ["name"]), try await authorize(session, hides: true))
            }
            #expect(first.isFirst && !second.isFirst)
            let third = try await store.transaction { try await authorize(Session(transaction: $0)) }
            #expect(!third.isFirst && third.consent.scopes == ["name"] && third.consent.hidesEmail == false)
        }
    }

    @Test("revoking ends codes and tokens; the next authorization is first again", arguments: TestPostgres.storeKinds)
    func revokeResets(kind: StoreKind) async throws {
        try await kind.withFreshStore { store in
            let (first, code) = try await store.transaction { transaction in
                let session = Session(transaction: transaction)
                let first = try await authorize(session)
                return (first, try await newCode(session, generation: first.consent.generation))
            }
            let revoked = try await store.transaction {
                try await Session(transaction: $0).revokeConsent(userKey: "maria", appGroupId: "example", now: now)
            }
            #expect(revoked)
            #expect(await redeem(store, code) == .codeExpired)
            let again = try await store.transaction { try await authorize(Session(transaction: $0), hides: true) }
            #expect(again.isFirst && again.consent.generation == first.consent.generation + 1)
            let gone = try await store.transaction { try await $0.get(Spaces.codes, code) }
            #expect(gone == nil)
        }
    }

    @Test("codes are single use and expire", arguments: TestPostgres.storeKinds)
    func singleUse(kind: StoreKind) async throws {
        try await kind.withFreshStore { store in
            let (used, expired) = try await store.transaction { transaction in
                let session = Session(transaction: transaction)
                let generation = try await authorize(session).consent.generation
                return (
                    try await newCode(session, generation: generation),
                    try await newCode(session, generation: generation)
                )
            }
            #expect(await redeem(store, used) == nil)
            #expect(await redeem(store, used) == .codeUsed)
            #expect(await redeem(store, expired, at: now.addingTimeInterval(300)) == .codeExpired)
            #expect(await redeem(store, "c-unknown") == .codeExpired)
        }
    }

    @Test("a code raced by 40 redeemers is redeemed exactly once", arguments: TestPostgres.storeKinds)
    func concurrentRedeem(kind: StoreKind) async throws {
        try await kind.withFreshStore { store in
            let code = try await store.transaction { transaction in
                let session = Session(transaction: transaction)
                return try await newCode(session, generation: try await authorize(session).consent.generation)
            }
            let outcomes = await withTaskGroup(of: AppleError?.self) { group in
                for _ in 0..<40 { group.addTask { await redeem(store, code) } }
                return await group.reduce(into: [AppleError?]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == nil }.count == 1)
            #expect(outcomes.filter { $0 == .codeUsed }.count == 39)
        }
    }

    @Test("a step that fails writes nothing", arguments: TestPostgres.storeKinds)
    func atomic(kind: StoreKind) async throws {
        try await kind.withFreshStore { store in
            await #expect(throws: AppleError.self) {
                try await store.transaction { transaction in
                    _ = try await authorize(Session(transaction: transaction))
                    throw AppleError.invalidRequest("changed my mind")
                }
            }
            let consent = try await store.transaction {
                try await Session(transaction: $0).consent(userKey: "maria", appGroupId: "example")
            }
            #expect(consent == nil)
        }
    }

    @Test(
        "the sweep frees codes and tokens once the mock's clock passes their expiry", arguments: TestPostgres.storeKinds
    )
    func sweep(kind: StoreKind) async throws {
        try await kind.withFreshStore { store in
            let code = try await store.transaction { transaction in
                let session = Session(transaction: transaction)
                return try await newCode(session, generation: try await authorize(session).consent.generation)
            }
            #expect(try await store.sweep(expiredBefore: now) == 0)
            #expect(try await store.sweep(expiredBefore: now.addingTimeInterval(3 * 3_600)) == 1)
            let gone = try await store.transaction { try await $0.get(Spaces.codes, code) }
            #expect(gone == nil)
        }
    }

    @Test(
        "a sweep frees a burst larger than one of its steps, those that expired only, and counts them all",
        arguments: TestPostgres.storeKinds)
    func sweepBurst(kind: StoreKind) async throws {
        let expired = max(MemoryStore.sweepBatch, PostgresStore.sweepBatch) + 25
        try await kind.withFreshStore { store in
            try await store.transaction { transaction in
                for index in 0..<(expired + 10) {
                    let expiry = now.addingTimeInterval(index < expired ? 60 : 7_200)
                    try await transaction.put(
                        Spaces.deletedAccounts, "user-\(index)", Marker(at: now), index: EntryIndex(expiresAt: expiry))
                }
            }
            #expect(try await store.sweep(expiredBefore: now.addingTimeInterval(3_600)) == expired)
            let left = try await store.transaction { try await $0.list(Spaces.deletedAccounts) }
            #expect(left.map(\.key) == (expired..<(expired + 10)).map { "user-\($0)" })
        }
    }

    @Test("listing keeps insertion order; prune keeps the newest; clear empties", arguments: TestPostgres.storeKinds)
    func orderPruneClear(kind: StoreKind) async throws {
        try await kind.withFreshStore { store in
            for index in 0..<12 {
                try await store.transaction { transaction in
                    try await transaction.put(Spaces.deletedAccounts, "user-\(11 - index)", Marker(at: now))
                    try await transaction.prune(Spaces.deletedAccounts, keep: 10)
                }
            }
            let keys = try await store.transaction { try await $0.list(Spaces.deletedAccounts).map(\.key) }
            #expect(keys == (0..<10).reversed().map { "user-\($0)" })
            try await store.transaction { try await $0.clear([Spaces.deletedAccounts.name]) }
            let left = try await store.transaction { try await $0.list(Spaces.deletedAccounts).count }
            #expect(left == 0)
        }
    }

    @Test(
        "a prune passes over due entries, and takes one once it is no longer due", arguments: TestPostgres.storeKinds)
    func pruneAfterDue(kind: StoreKind) async throws {
        try await kind.withFreshStore { store in
            let space = Spaces.deletedAccounts
            try await store.transaction { transaction in
                for index in 0..<3 {
                    try await transaction.put(space, "due-\(index)", Marker(at: now), index: EntryIndex(dueAt: Date()))
                }
            }
            for index in 0..<10 {
                try await store.transaction { transaction in
                    try await transaction.put(space, "done-\(index)", Marker(at: now))
                    try await transaction.prune(space, keep: 5)
                }
            }
            var keys = try await store.transaction { try await $0.list(space).map(\.key) }
            #expect(keys == ["due-0", "due-1", "due-2"] + (5..<10).map { "done-\($0)" })
            // Delivered: no longer due, and the oldest of those a prune may take.
            try await store.transaction { try await $0.put(space, "due-1", Marker(at: now)) }
            try await store.transaction { transaction in
                try await transaction.put(space, "done-10", Marker(at: now))
                try await transaction.prune(space, keep: 5)
            }
            keys = try await store.transaction { try await $0.list(space).map(\.key) }
            #expect(keys == ["due-0", "due-2"] + (6..<11).map { "done-\($0)" })
        }
    }

    @Test(
        "due entries are claimed by one caller, and again once their lease runs out", arguments: TestPostgres.storeKinds
    )
    func claimDue(kind: StoreKind) async throws {
        try await kind.withFreshStore { store in
            let wall = Date()
            try await store.transaction { transaction in
                for index in 0..<20 {
                    try await transaction.put(
                        Spaces.deletedAccounts, "due-\(index)", Marker(at: now), index: EntryIndex(dueAt: wall))
                }
            }
            let lease = wall.addingTimeInterval(60)
            let batches = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await store.claimDue(
                            Spaces.deletedAccounts, now: wall, leaseUntil: lease, limit: 8, mark: { _ in }
                        ).map(\.key)
                    }
                }
                return try await group.reduce(into: [[String]]()) { $0.append($1) }
            }
            let claimed = batches.flatMap { $0 }
            #expect(claimed.count == 20 && Set(claimed).count == 20)
            let none = try await store.claimDue(
                Spaces.deletedAccounts, now: wall, leaseUntil: lease, limit: 50, mark: { _ in })
            #expect(none.isEmpty)
            let retaken = try await store.claimDue(
                Spaces.deletedAccounts, now: lease.addingTimeInterval(1), leaseUntil: lease.addingTimeInterval(60),
                limit: 50, mark: { $0.at = $0.at.addingTimeInterval(1) })
            #expect(retaken.count == 20)
            let marked = try await store.transaction { try await $0.get(Spaces.deletedAccounts, "due-0") }
            #expect(marked?.at == now.addingTimeInterval(1))
        }
    }

    @Test("writing the control record moves its revision", arguments: TestPostgres.storeKinds)
    func controlRevision(kind: StoreKind) async throws {
        try await kind.withFreshStore { store in
            try await store.transaction {
                try await $0.put(Spaces.control, ControlState.key, ControlState(scenario: "a"))
            }
            let first = try await store.control(ifChangedFrom: nil)
            #expect(first.value?.scenario == "a")
            let unchanged = try await store.control(ifChangedFrom: first.revision)
            #expect(unchanged.value == nil && unchanged.revision == first.revision)
            try await store.transaction {
                try await $0.put(Spaces.control, ControlState.key, ControlState(scenario: "b"))
            }
            let second = try await store.control(ifChangedFrom: first.revision)
            #expect(second.value?.scenario == "b" && second.revision != first.revision)
        }
    }
}

/// Small pieces of the state machinery on their own.
@Suite("State pieces")
struct StatePiecesTests {
    @Test("the epoch watch wakes work of older epochs only")
    func epochWatch() async throws {
        let watch = EpochWatch()
        watch.observe(3)
        let superseded = Task { await watch.waitUntilSuperseded(3) }
        await watch.waitUntilSuperseded(2)  // already superseded: returns at once
        await watch.waitUntilSuperseded(1)
        #expect(try await Waiting.until(seconds: 600, every: .zero) { watch.waiting == 1 })
        watch.observe(3)  // the same epoch again wakes nobody (a wake resumes the wait before `observe` returns)
        #expect(watch.waiting == 1)
        watch.observe(2)  // nor does an older one
        #expect(watch.waiting == 1 && watch.epoch == 3)
        watch.observe(4)
        #expect(watch.waiting == 0)
        await superseded.value
        #expect(watch.epoch == 4)
    }

    @Test("PostgreSQL URLs: parts percent-decoded once, the password masked when shown")
    func postgresURL() throws {
        let location = try StoreLocation(parsing: "postgres://app%20user:p%2541%40ss@db.internal:6543/mock")
        guard case .postgres(let parts) = location else {
            Issue.record("not parsed as PostgreSQL")
            return
        }
        #expect(parts.user == "app user" && parts.password == "p%41@ss")
        #expect(parts.host == "db.internal" && parts.port == 6543 && parts.database == "mock")
        #expect(location.description == "postgres://app user:***@db.internal:6543/mock")
        #expect(throws: StoreOpeningError.self) { try StoreLocation(parsing: "postgres://user@host") }
        #expect(throws: StoreOpeningError.self) { try StoreLocation(parsing: "mysql://u:p@h/db") }
        #expect(try StoreLocation(parsing: "sqlite:/tmp/x.db") == .sqlite(path: "/tmp/x.db"))
    }
}

/// The grant rules as pure functions, without a store or HTTP.
@Suite("Grant rules")
struct GrantRulesTests {
    let now = Fixture.start

    private func record(challenge: String? = nil, method: String? = nil) -> AuthorizationCodeRecord {
        AuthorizationCodeRecord(
            code: "c", clientId: "com.example.web", appGroupId: "example", userKey: "maria", redirectUri: "https://r",
            nonce: nil, codeChallenge: challenge, codeChallengeMethod: method, issuedAt: now,
            expiresAt: now.addingTimeInterval(300), authTime: now, consentGeneration: 1, redeemedAt: nil)
    }

    private let consent = Consent(
        userKey: "maria", appGroupId: "example", scopes: [], hidesEmail: false, status: .authorized, generation: 1,
        authorizedAt: Fixture.start)

    private func redeem(
        _ record: AuthorizationCodeRecord, client: String = "com.example.web", redirect: String? = "https://r",
        verifier: String? = nil, pkce: MockSettings.PKCEMode = .strict
    ) -> AppleError? {
        do {
            _ = try GrantRules.redeem(
                record, consent: consent, clientId: client, redirectUri: redirect, codeVerifier: verifier, pkce: pkce,
                now: now)
            return nil
        } catch {
            return error
        }
    }

    @Test("codes are bound to client and redirect URI, with Apple's descriptions")
    func bindings() {
        #expect(
            redeem(record(), client: "com.other")?.description
                == "client_id mismatch. The code was not issued to com.other.")
        #expect(
            redeem(record(), redirect: "https://x")?.description
                == "redirect_uri mismatch. The code was not issued to https://x.")
        #expect(redeem(record()) == nil)
    }

    @Test("PKCE: S256 and plain challenges are enforced; a verifier without challenge is refused when strict")
    func pkce() {
        let verifier = String(repeating: "v", count: 50)
        let s256 = Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncoded
        #expect(redeem(record(challenge: s256, method: "S256"))?.code == "invalid_grant")
        #expect(redeem(record(challenge: s256, method: "S256"), verifier: "wrong")?.code == "invalid_grant")
        #expect(redeem(record(challenge: s256, method: "S256"), verifier: verifier) == nil)
        #expect(redeem(record(challenge: verifier, method: "plain"), verifier: verifier) == nil)
        #expect(redeem(record(), verifier: verifier)?.code == "invalid_grant")
        #expect(redeem(record(), verifier: verifier, pkce: .whenChallenged) == nil)
    }

    @Test("a revoked consent's code is expired")
    func deadConsent() {
        var revoked = consent
        revoked.status = .revoked
        #expect(throws: AppleError.codeExpired) {
            try GrantRules.redeem(
                record(), consent: revoked, clientId: "com.example.web", redirectUri: "https://r", codeVerifier: nil,
                pkce: .strict, now: now)
        }
    }
}
