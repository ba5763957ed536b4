import Logging
import PostgresNIO

/// Creates the tables on first start and checks the schema version, under an advisory lock so that
/// replicas starting together do not race.
enum PostgresSchema {
    /// The schema version this build reads and writes.
    static let version = "1"
    /// The advisory lock key (any fixed number, the same for every replica).
    private static let lockKey: Int64 = 0x4150_4c45_4944

    static func prepare(_ connection: PostgresConnection, location: String, logger: Logger) async throws {
        _ = try await connection.query("SELECT pg_advisory_lock(\(lockKey))", logger: logger)
        do {
            try await prepareLocked(connection, location: location, logger: logger)
            _ = try await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
        } catch {
            _ = try? await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
            throw error
        }
    }

    private static func prepareLocked(_ connection: PostgresConnection, location: String, logger: Logger) async throws {
        _ = try await connection.query(
            "CREATE TABLE IF NOT EXISTS apple_id_mock_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
            logger: logger)
        var found: String?
        for try await value in try await connection.query(
            "SELECT value FROM apple_id_mock_meta WHERE name = 'schema_version'", logger: logger
        ).decode(String.self) {
            found = value
        }
        if let found {
            guard found == version else {
                throw StoreOpeningError(
                    location: location,
                    cause:
                        "the database has state schema version \(found); this apple-id-mock reads version \(version). Use another database, or the release that wrote it"
                )
            }
            return
        }
        for statement in statements {
            _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        _ = try await connection.query(
            "INSERT INTO apple_id_mock_meta (name, value) VALUES ('schema_version', \(version))", logger: logger)
        logger.notice("created the state tables", metadata: ["idp.store": .string(location)])
    }

    private static let statements = [
        """
        CREATE TABLE IF NOT EXISTS apple_id_mock_entries (
            space TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
            expires_at DOUBLE PRECISION, due_at DOUBLE PRECISION, grp TEXT,
            seq BIGSERIAL NOT NULL, rev BIGINT NOT NULL DEFAULT 1,
            PRIMARY KEY (space, key))
        """,
        "CREATE INDEX IF NOT EXISTS apple_id_mock_entries_expiry ON apple_id_mock_entries (expires_at) WHERE expires_at IS NOT NULL",
        "CREATE INDEX IF NOT EXISTS apple_id_mock_entries_due ON apple_id_mock_entries (space, due_at) WHERE due_at IS NOT NULL",
        "CREATE INDEX IF NOT EXISTS apple_id_mock_entries_group ON apple_id_mock_entries (grp) WHERE grp IS NOT NULL",
        "CREATE INDEX IF NOT EXISTS apple_id_mock_entries_order ON apple_id_mock_entries (space, seq)",
    ]
}
