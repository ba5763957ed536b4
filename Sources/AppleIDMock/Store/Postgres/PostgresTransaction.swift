import Logging
import PostgresNIO

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One step on PostgreSQL under the write lock: the statements of a transaction of its own
/// (`PostgresWriteLock`) on one leased connection.
final class PostgresTransaction: StateTransaction {
    private let connection: PostgresConnection
    private let logger: Logger

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    func get<Value>(_ space: StoreSpace<Value>, _ key: String) async throws -> Value? {
        // PostgreSQL text cannot hold NUL, so no stored key has one (a forged code or token may).
        guard !key.utf8.contains(0) else { return nil }
        let rows = try await connection.query(
            "SELECT value FROM apple_id_mock_entries WHERE space = \(space.name) AND key = \(key)", logger: logger)
        for try await text in rows.decode(String.self) {
            return try StoreCoding.decoder.decode(Value.self, from: Data(text.utf8))
        }
        return nil
    }

    func put<Value>(_ space: StoreSpace<Value>, _ key: String, _ value: Value, index: EntryIndex) async throws {
        try Spaces.require(space.name)
        let text = try StoreCoding.text(value)
        try await connection.query(
            """
            INSERT INTO apple_id_mock_entries (space, key, value, expires_at, due_at, grp)
            VALUES (\(space.name), \(key), \(text), \(index.expiresAt?.timeIntervalSince1970), \
            \(index.dueAt?.timeIntervalSince1970), \(index.group))
            ON CONFLICT (space, key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at,
                due_at = EXCLUDED.due_at, grp = EXCLUDED.grp, rev = apple_id_mock_entries.rev + 1
            """, logger: logger)
    }

    /// One statement for the whole batch (the journal's writes), not a round trip per entry.
    func putAll<Value>(_ space: StoreSpace<Value>, _ entries: [(key: String, value: Value)]) async throws {
        guard !entries.isEmpty else { return }
        try Spaces.require(space.name)
        let keys = entries.map(\.key)
        let values = try entries.map { try StoreCoding.text($0.value) }
        try await connection.query(
            """
            INSERT INTO apple_id_mock_entries (space, key, value)
            SELECT \(space.name), entry.key, entry.value
            FROM unnest(\(keys)::text[], \(values)::text[]) WITH ORDINALITY AS entry(key, value, position)
            ORDER BY entry.position
            ON CONFLICT (space, key) DO UPDATE SET value = EXCLUDED.value, expires_at = NULL, due_at = NULL,
                grp = NULL, rev = apple_id_mock_entries.rev + 1
            """, logger: logger)
    }

    func delete<Value>(_ space: StoreSpace<Value>, _ key: String) async throws {
        guard !key.utf8.contains(0) else { return }
        try await connection.query(
            "DELETE FROM apple_id_mock_entries WHERE space = \(space.name) AND key = \(key)", logger: logger)
    }

    func list<Value>(_ space: StoreSpace<Value>, prefix: String) async throws -> [(key: String, value: Value)] {
        guard !prefix.utf8.contains(0) else { return [] }
        let rows = try await connection.query(
            """
            SELECT key, value FROM apple_id_mock_entries WHERE space = \(space.name) AND starts_with(key, \(prefix))
            ORDER BY seq
            """, logger: logger)
        var entries: [(key: String, value: Value)] = []
        for try await (key, text) in rows.decode((String, String).self) {
            entries.append((key, try StoreCoding.decoder.decode(Value.self, from: Data(text.utf8))))
        }
        return entries
    }

    func deleteGroup(_ group: String, in spaces: [String]) async throws {
        try await connection.query(
            "DELETE FROM apple_id_mock_entries WHERE grp = \(group) AND space = ANY(\(spaces))", logger: logger)
    }

    func clear(_ spaces: [String]) async throws {
        for space in spaces { try Spaces.require(space) }
        try await connection.query("DELETE FROM apple_id_mock_entries WHERE space = ANY(\(spaces))", logger: logger)
    }

    func prune<Value>(_ space: StoreSpace<Value>, keep: Int) async throws {
        try await connection.query(
            "SELECT apple_id_mock_prune(\(space.name), \(Int32(clamping: keep)))", logger: logger)
    }
}
