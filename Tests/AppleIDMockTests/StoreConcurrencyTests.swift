import Foundation
import Testing

@testable import AppleIDMock

/// Concurrent steps on every store: read-modify-write steps lose no update, and on PostgreSQL
/// concurrent steps share statements (fewer statements than steps) and still see each other's writes.
@Suite("Store concurrency")
struct StoreConcurrencyTests {
    let now = Fixture.start

    @Test("60 concurrent read-modify-write steps on one entry lose no update", arguments: TestPostgres.storeKinds)
    func noLostUpdate(kind: StoreKind) async throws {
        try await kind.withFreshStore { store in
            try await Self.waitUntilSharing(store)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<60 {
                    group.addTask {
                        try await store.transaction { transaction in
                            var counts = try await transaction.get(Spaces.faultCounts, "rule-1") ?? FaultCounts()
                            counts.matched += 1
                            try await transaction.put(Spaces.faultCounts, "rule-1", counts)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let counts = try await store.transaction { try await $0.get(Spaces.faultCounts, "rule-1") }
            #expect(counts?.matched == 60)
        }
    }

    @Test("PostgreSQL: 64 concurrent sign-ins share statements, and each code is stored once")
    func sharedStatements() async throws {
        guard TestPostgres.isAvailable else { return }
        try await StoreKind.postgres.withFreshStore { store in
            let postgres = try #require(store as? PostgresStore)
            try await Self.waitUntilSharing(store)
            let now = self.now
            // The consent exists: each step reads it and the account's deletion marker, and writes a code.
            _ = try await store.transaction { transaction in
                try await Session(transaction: transaction).authorize(
                    userKey: "maria", appGroupId: "example", scopes: ["email"], hidesEmail: false, now: now)
            }
            let before = postgres.sharedStatements
            let codes = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<64 {
                    group.addTask {
                        try await store.transaction { try await Session(transaction: $0).storeTestCode(now: now) }
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            let statements = postgres.sharedStatements - before
            // One step alone takes three statements (two reads and its commit): 192 unshared. Workers
            // that are idle take a request at once, so the bound leaves room for a slow machine.
            #expect(statements < 128, "64 steps took \(statements) statements")
            #expect(Set(codes).count == 64)
            let stored = try await store.transaction { transaction in
                var found = 0
                for code in codes where try await transaction.get(Spaces.codes, code) != nil { found += 1 }
                return found
            }
            #expect(stored == 64)
        }
    }

    /// Waits until a PostgreSQL store's steps share statements (its pool took over from the start-up
    /// connection); other stores at once.
    static func waitUntilSharing(_ store: any StateStore) async throws {
        guard let postgres = store as? PostgresStore else { return }
        _ = try await Waiting.until(seconds: 2, every: .milliseconds(10)) { postgres.batching }
        #expect(postgres.batching)
    }
}
