import Foundation
import Testing

@testable import AppleIDMock

/// The batch commit on PostgreSQL: steps of a round that read one entry at one version share its
/// check, and a put of a key the step did not read is inserted as new, and made an update when the
/// key was there after all.
@Suite("PostgreSQL: the batch commit")
struct PostgresCommitTests {
    @Test("steps that read one stale entry share its check: every one of them runs again on the fresh value")
    func sharedCheckRefusesEveryReader() async throws {
        guard TestPostgres.isAvailable else { return }
        try await TestPostgres.withReplicaPair { first, second in
            try await Self.setRule(1, on: first)
            #expect(try await Self.rule(on: first) == 1)  // now kept by the first
            try await Self.setRule(2, on: second)
            // Each step copies the rule's count, read from the kept (stale) entry, into its own entry.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<24 {
                    group.addTask {
                        try await first.transaction { transaction in
                            let counts = try await transaction.get(Spaces.faultCounts, "rule-1") ?? FaultCounts()
                            try await transaction.put(Spaces.faultCounts, "copy-\(index)", counts)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let copies = try await second.transaction { try await $0.list(Spaces.faultCounts, prefix: "copy-") }
            #expect(copies.count == 24)
            #expect(copies.allSatisfy { $0.value.matched == 2 })
        }
    }

    @Test("puts of keys the steps did not read, some there already: the new ones inserted, the others updated")
    func blindPutsOverExistingEntries() async throws {
        guard TestPostgres.isAvailable else { return }
        try await TestPostgres.withReplicaPair { first, second in
            try await first.transaction { transaction in
                for index in 0..<8 {
                    try await transaction.put(Spaces.faultCounts, "old-\(index)", FaultCounts(matched: 1))
                }
            }
            // Now kept by the first, at its first version.
            #expect(try await first.transaction { try await $0.get(Spaces.faultCounts, "old-0")?.matched } == 1)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        try await second.transaction { transaction in
                            // Half of them overwrite an entry they never read; each also adds one.
                            if index < 8 {
                                try await transaction.put(Spaces.faultCounts, "old-\(index)", FaultCounts(matched: 2))
                            }
                            try await transaction.put(Spaces.faultCounts, "new-\(index)", FaultCounts(matched: 3))
                        }
                    }
                }
                try await group.waitForAll()
            }
            let listed = try await first.transaction { try await $0.list(Spaces.faultCounts) }
            let values = Dictionary(uniqueKeysWithValues: listed.map { ($0.key, $0.value.matched) })
            #expect(values.count == 24)
            #expect((0..<8).allSatisfy { values["old-\($0)"] == 2 })
            #expect((0..<16).allSatisfy { values["new-\($0)"] == 3 })
            // An overwritten entry has a new version: a step on the first replica's kept copy runs again.
            try await first.transaction { transaction in
                var counts = try await transaction.get(Spaces.faultCounts, "old-0") ?? FaultCounts()
                counts.matched += 10
                try await transaction.put(Spaces.faultCounts, "old-0", counts)
            }
            #expect(try await second.transaction { try await $0.get(Spaces.faultCounts, "old-0")?.matched } == 12)
        }
    }

    @Test("a prune mark left above every entry (state tables made anew) is not trusted: the oldest go")
    func staleMark() async throws {
        guard TestPostgres.isAvailable else { return }
        let url = try await TestPostgres.freshDatabase()
        try await TestPostgres.withStore(url: url) { store in
            try await TestPostgres.run(
                "INSERT INTO apple_id_mock_prune_marks (space, seq) VALUES ('\(Spaces.deletedAccounts.name)', 1000000)",
                in: url)
            for index in 0..<12 {
                try await store.transaction { transaction in
                    try await transaction.put(Spaces.deletedAccounts, "user-\(index)", Marker(at: Date()))
                    try await transaction.prune(Spaces.deletedAccounts, keep: 10)
                }
            }
            let keys = try await store.transaction { try await $0.list(Spaces.deletedAccounts).map(\.key) }
            #expect(keys == (2..<12).map { "user-\($0)" })
        }
    }

    @Test("a call of many rounds inserts without a lookup in its first rounds only (a subtransaction each)")
    func fewSubtransactions() async throws {
        guard TestPostgres.isAvailable else { return }
        let url = try await TestPostgres.freshDatabase()
        try await TestPostgres.withStore(url: url) { _ in
            // One of the keys is there already, in a round past the first four.
            try await TestPostgres.run(
                "INSERT INTO apple_id_mock_entries (space, key, value) VALUES ('s', 'k10', 'old')", in: url)
            // Twelve steps, each inserting one new entry and pruning the space: one round each.
            let steps = (0..<12).map(String.init).joined(separator: ",")
            let rounds = steps
            let keys = (0..<12).map { "\"k\($0)\"" }.joined(separator: ",")
            let twelve = { (value: String) in Array(repeating: value, count: 12).joined(separator: ",") }
            let refused = try await TestPostgres.run(
                """
                SELECT apple_id_mock_commit_steps('{\(rounds)}', '{}', '{}', '{}', '{}', '{}', '{}', '{}',
                    '{\(steps)}', '{\(twelve("2"))}', '{\(twelve("s"))}', '{\(keys)}', '{\(twelve("\"{}\""))}',
                    '{\(twelve("NaN"))}', '{\(twelve("NaN"))}', '{\(twelve("f"))}', '{\(twelve("\"\""))}',
                    '{\(steps)}', '{\(twelve("s"))}', '{\(twelve("100"))}')::text
                """, in: url)
            #expect(refused == ["{}"])
            let counts = try await TestPostgres.run(
                "SELECT count(*) || ' ' || count(DISTINCT xmin::text) FROM apple_id_mock_entries WHERE space = 's'",
                in: url)
            // Four rounds in subtransactions of their own, the other eight in the call's transaction.
            #expect(counts == ["12 5"])
            let updated = try await TestPostgres.run(
                "SELECT value || ' ' || rev FROM apple_id_mock_entries WHERE space = 's' AND key = 'k10'", in: url)
            #expect(updated == ["{} 2"])
        }
    }

    /// Sets the rule's count, in one step.
    private static func setRule(_ matched: Int, on store: any StateStore) async throws {
        try await store.transaction { transaction in
            _ = try await transaction.get(Spaces.faultCounts, "rule-1")
            try await transaction.put(Spaces.faultCounts, "rule-1", FaultCounts(matched: matched))
        }
    }

    /// The rule's count, read alone in a step.
    private static func rule(on store: any StateStore) async throws -> Int? {
        try await store.transaction { try await $0.get(Spaces.faultCounts, "rule-1")?.matched }
    }
}
