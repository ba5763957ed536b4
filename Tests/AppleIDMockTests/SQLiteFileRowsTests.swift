import Foundation
import SQLiteNIO
import Testing

@testable import AppleIDMock

/// The SQLite file holds a row per live entry, found by the entry's insertion number: deleted,
/// replaced and renumbered entries leave no row behind, alone or in a shared write, and a file of
/// schema version 1 is migrated at start.
@Suite("SQLite file rows")
struct SQLiteFileRowsTests {
    let now = Fixture.start

    /// The file's rows as `space/key` → seq (the store must be closed).
    private func rows(at path: String) async throws -> [String: Int] {
        let connection = try await SQLiteConnection.open(storage: .file(path: path))
        var rows: [String: Int] = [:]
        for row in try await connection.query("SELECT space, key, seq FROM apple_id_mock_entries") {
            let name = "\(row.column("space")?.string ?? "")/\(row.column("key")?.string ?? "")"
            #expect(rows[name] == nil, "two rows for \(name)")
            rows[name] = row.column("seq")?.integer
        }
        try await connection.close()
        return rows
    }

    /// Opens the store at `path` while `body` runs.
    private func withStore<T: Sendable>(at path: String, _ body: (any StateStore) async throws -> T) async throws -> T {
        let opened = try await StoreOpener.open(.sqlite(path: path), logger: TestPostgres.quietLogger)
        let result = try await body(opened.store)
        await opened.close()
        return result
    }

    /// The markers the store lists, by key.
    private func markers(_ store: any StateStore) async throws -> [String] {
        try await store.transaction { try await $0.list(Spaces.deletedAccounts) }.map(\.key)
    }

    @Test("a step that deletes, replaces and deletes then writes again leaves a row per live entry")
    func oneStep() async throws {
        let path = TestPaths.temporaryFile("state.sqlite")
        try await withStore(at: path) { store in
            try await store.transaction { transaction in
                for key in ["a", "b", "c"] { try await transaction.put(Spaces.deletedAccounts, key, Marker(at: now)) }
            }
            try await store.transaction { transaction in
                try await transaction.delete(Spaces.deletedAccounts, "a")
                try await transaction.put(Spaces.deletedAccounts, "a", Marker(at: now.addingTimeInterval(1)))
                try await transaction.put(Spaces.deletedAccounts, "b", Marker(at: now.addingTimeInterval(2)))
                try await transaction.delete(Spaces.deletedAccounts, "c")
            }
            // Written before it is applied (a control record), with an entry deleted beside it.
            try await store.transaction { transaction in
                try await transaction.put(Spaces.control, ControlState.key, ControlState(scenario: "a"))
                try await transaction.delete(Spaces.deletedAccounts, "b")
            }
        }
        let rows = try await rows(at: path)
        #expect(Set(rows.keys) == ["deleted_account/a", "control/\(ControlState.key)"])
        try await withStore(at: path) { store in
            #expect(try await markers(store) == ["a"])
            let marker = try await store.transaction { try await $0.get(Spaces.deletedAccounts, "a") }
            #expect(marker?.at == now.addingTimeInterval(1))
        }
    }

    @Test("a code, kept packed in memory, leaves its row once redeemed; the reopened file refuses it")
    func redeemedCode() async throws {
        let path = TestPaths.temporaryFile("state.sqlite")
        let code = try await withStore(at: path) { store in
            let code = try await store.transaction { try await Session(transaction: $0).storeTestCode(now: now) }
            _ = try await store.transaction { transaction in
                try await Session(transaction: transaction).redeem(
                    code: code, clientId: "com.example.web", redirectUri: "https://r", codeVerifier: nil,
                    pkce: .strict, now: now)
            }
            return code
        }
        let rows = try await rows(at: path)
        #expect(rows["\(Spaces.codes.name)/\(code)"] == nil)
        let (live, again) = try await withStore(at: path) { store in
            let live = try await store.transaction { try await $0.get(Spaces.codes, code) }
            do {
                _ = try await store.transaction { transaction in
                    try await Session(transaction: transaction).redeem(
                        code: code, clientId: "com.example.web", redirectUri: "https://r", codeVerifier: nil,
                        pkce: .strict, now: now)
                }
                return (live, nil as AppleError?)
            } catch let error as AppleError {
                return (live, error)
            }
        }
        #expect(live == nil)
        #expect(again == .codeUsed)
    }

    @Test("concurrent steps that share writes leave a row per live entry, read back the same")
    func sharedWrites() async throws {
        let path = TestPaths.temporaryFile("state.sqlite")
        let live = try await withStore(at: path) { store in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let key = "k\(index % 7)"
                        try await store.transaction { transaction in
                            if index % 3 == 0, try await transaction.get(Spaces.deletedAccounts, key) != nil {
                                try await transaction.delete(Spaces.deletedAccounts, key)
                            } else {
                                // Deleted and written again: a new number, the old row retired.
                                if index % 3 == 1 { try await transaction.delete(Spaces.deletedAccounts, key) }
                                try await transaction.put(
                                    Spaces.deletedAccounts, key, Marker(at: now.addingTimeInterval(Double(index))))
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            return try await store.transaction { try await $0.list(Spaces.deletedAccounts) }.map {
                "\($0.key)=\($0.value.at.timeIntervalSince(now))"
            }
        }
        let rows = try await rows(at: path)
        #expect(rows.keys.filter { $0.hasPrefix("deleted_account/") }.count == live.count)
        let reread = try await withStore(at: path) { store in
            try await store.transaction { try await $0.list(Spaces.deletedAccounts) }.map {
                "\($0.key)=\($0.value.at.timeIntervalSince(now))"
            }
        }
        #expect(reread == live)
    }

    @Test("two rows of one entry: the newer is loaded, the older deleted, so deleting the entry deletes it")
    func duplicateRows() async throws {
        let path = TestPaths.temporaryFile("state.sqlite")
        try await withStore(at: path) { store in
            try await store.transaction { try await $0.put(Spaces.deletedAccounts, "a", Marker(at: now)) }
        }
        let connection = try await SQLiteConnection.open(storage: .file(path: path))
        _ = try await connection.query(
            "INSERT INTO apple_id_mock_entries (space, key, value, seq) VALUES ('deleted_account', 'a', ?, 1000)",
            [.text(try StoreCoding.text(Marker(at: now.addingTimeInterval(5))))])
        try await connection.close()
        let loaded = try await withStore(at: path) { store in
            let marker = try await store.transaction { try await $0.get(Spaces.deletedAccounts, "a") }
            try await store.transaction { try await $0.delete(Spaces.deletedAccounts, "a") }
            return marker
        }
        #expect(loaded?.at == now.addingTimeInterval(5))
        #expect(try await rows(at: path)["deleted_account/a"] == nil)
        #expect(try await withStore(at: path) { try await markers($0) }.isEmpty)
    }

    @Test("a row of a space this build does not know keeps its number: new entries are numbered after it")
    func unknownSpaceRow() async throws {
        let path = TestPaths.temporaryFile("state.sqlite")
        try await withStore(at: path) { _ in }
        let connection = try await SQLiteConnection.open(storage: .file(path: path))
        _ = try await connection.query(
            "INSERT INTO apple_id_mock_entries (space, key, value, seq) VALUES ('from_a_later_build', 'x', '{}', 7)")
        try await connection.close()
        try await withStore(at: path) { store in
            for key in ["a", "b", "c", "d", "e", "f", "g", "h"] {
                try await store.transaction { try await $0.put(Spaces.deletedAccounts, key, Marker(at: now)) }
            }
        }
        let rows = try await rows(at: path)
        #expect(rows["from_a_later_build/x"] == 7)
        #expect(rows.count == 9)
    }

    @Test("a file of schema version 1 is migrated: every entry kept, in order, numbers made unique")
    func migratesVersion1() async throws {
        let path = TestPaths.temporaryFile("state.sqlite")
        let connection = try await SQLiteConnection.open(storage: .file(path: path))
        for statement in [
            "CREATE TABLE apple_id_mock_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
            """
            CREATE TABLE apple_id_mock_entries (
                space TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, expires_at REAL, due_at REAL, grp TEXT,
                seq INTEGER NOT NULL, PRIMARY KEY (space, key))
            """,
            "INSERT INTO apple_id_mock_meta (name, value) VALUES ('schema_version', '1')",
        ] {
            _ = try await connection.query(statement)
        }
        let marker = try StoreCoding.text(Marker(at: now))
        // Two rows share a number: the migration renumbers them in order.
        for (key, seq) in [("z", 3), ("y", 5), ("x", 5), ("w", 9)] {
            _ = try await connection.query(
                "INSERT INTO apple_id_mock_entries (space, key, value, seq) VALUES ('deleted_account', ?, ?, ?)",
                [.text(key), .text(marker), .integer(seq)])
        }
        try await connection.close()
        try await withStore(at: path) { store in
            #expect(try await markers(store) == ["z", "y", "x", "w"])
            try await store.transaction { try await $0.put(Spaces.deletedAccounts, "v", Marker(at: now)) }
        }
        let rows = try await rows(at: path)
        #expect(rows.count == 5 && Set(rows.values).count == 5)
        let reopened = try await SQLiteConnection.open(storage: .file(path: path))
        let version = try await reopened.query("SELECT value FROM apple_id_mock_meta WHERE name = 'schema_version'")
        #expect(version.first?.column("value")?.string == SQLiteJournal.schemaVersion)
        try await reopened.close()
        let reread = try await withStore(at: path) { store in try await markers(store) }
        #expect(reread == ["z", "y", "x", "w", "v"])
    }
}
