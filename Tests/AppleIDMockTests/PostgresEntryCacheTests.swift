import Foundation
import Testing

@testable import AppleIDMock

/// A replica on PostgreSQL keeps the entries it read (`EntryCache`); another replica's change is
/// never lost nor missed, because every step's commit checks what it read, cached or not.
@Suite("PostgreSQL: entries a replica keeps")
struct PostgresEntryCacheTests {
    @Test("an entry one replica read and another changed: the next step on it reads it afresh, nothing is lost")
    func changedOnAnotherReplica() async throws {
        guard TestPostgres.isAvailable else { return }
        try await TestPostgres.withReplicaPair { first, second in
            try await Self.count(on: first)
            #expect(try await Self.read(on: first) == 1)  // now kept by the first
            try await Self.count(on: second)
            // A step that only reads is checked too: the kept 1 is refused, the 2 read afresh.
            #expect(try await Self.read(on: first) == 2)
            try await Self.count(on: second)
            // The first's step reads the kept 2, its commit is refused, and it runs again on 3.
            try await Self.count(on: first)
            #expect(try await Self.read(on: second) == 4)
            #expect(try await Self.read(on: first) == 4)
        }
    }

    @Test("an absent entry is kept as absent until a step writes it")
    func absentUntilWritten() async throws {
        guard TestPostgres.isAvailable else { return }
        try await TestPostgres.withReplicaPair { first, second in
            #expect(try await Self.read(on: first) == nil)
            try await Self.count(on: second)
            #expect(try await Self.read(on: first) == 1)
        }
    }

    @Test("keys that are one string to Swift and two to PostgreSQL (two spellings of é) stay two")
    func keysByBytes() async throws {
        guard TestPostgres.isAvailable else { return }
        try await TestPostgres.withReplicaPair { first, second in
            let composed = "caf\u{E9}"
            let decomposed = "cafe\u{301}"
            try await first.transaction { transaction in
                try await transaction.put(Spaces.faultCounts, composed, FaultCounts(matched: 1))
                try await transaction.put(Spaces.faultCounts, decomposed, FaultCounts(matched: 2))
            }
            let listed = try await second.transaction { try await $0.list(Spaces.faultCounts) }
            #expect(listed.map(\.value.matched) == [1, 2])
            #expect(try await first.transaction { try await $0.get(Spaces.faultCounts, composed)?.matched } == 1)
        }
    }

    /// Adds one to the counter, in one step.
    private static func count(on store: any StateStore) async throws {
        try await store.transaction { transaction in
            var counts = try await transaction.get(Spaces.faultCounts, "rule-1") ?? FaultCounts()
            counts.matched += 1
            try await transaction.put(Spaces.faultCounts, "rule-1", counts)
        }
    }

    /// The counter, read alone in a step.
    private static func read(on store: any StateStore) async throws -> Int? {
        try await store.transaction { try await $0.get(Spaces.faultCounts, "rule-1")?.matched }
    }
}
