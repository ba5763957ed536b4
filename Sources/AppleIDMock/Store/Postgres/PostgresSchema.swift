import Logging
import PostgresNIO

/// Creates the tables on first start and checks the schema version, under an advisory lock so that
/// replicas starting together do not race; (re)creates the commit function on every start.
enum PostgresSchema {
    /// The schema version this build reads and writes.
    static let version = "1"
    /// The advisory lock key (any fixed number, the same for every replica).
    private static let lockKey: Int64 = 0x4150_4c45_4944
    /// The advisory lock every write holds until its transaction ends (see `PostgresStore`).
    static let writeLockKey: Int64 = 0x4150_4c45_5752

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
        } else {
            for statement in statements {
                _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            _ = try await connection.query(
                "INSERT INTO apple_id_mock_meta (name, value) VALUES ('schema_version', \(version))", logger: logger)
            logger.notice("created the state tables", metadata: ["idp.store": .string(location)])
        }
        _ = try await connection.query(PostgresQuery(unsafeSQL: commitFunction), logger: logger)
    }

    /// Commits a batch of optimistic steps in order, under the write lock: a step whose every read
    /// entry still has the version it saw (`(0, 0)`: absent) is written, the others are not, and
    /// their positions (from 0) are returned, to be run again. Reads are grouped by step and
    /// writes too, in step order; an absent expiry or due time is NaN.
    private static let commitFunction = """
        CREATE OR REPLACE FUNCTION apple_id_mock_commit_steps(
            steps INT, r_step INT[], r_space TEXT[], r_key TEXT[], r_seq BIGINT[], r_rev BIGINT[],
            w_step INT[], w_put BOOL[], w_space TEXT[], w_key TEXT[], w_value TEXT[],
            w_expires DOUBLE PRECISION[], w_due DOUBLE PRECISION[], w_has_grp BOOL[], w_grp TEXT[])
        RETURNS INT[] LANGUAGE plpgsql AS $$
        DECLARE
            refused INT[] := '{}';
            ok BOOLEAN;
            found_seq BIGINT;
            found_rev BIGINT;
            r INT := 1;
            w INT := 1;
            r_count INT := coalesce(array_length(r_step, 1), 0);
            w_count INT := coalesce(array_length(w_step, 1), 0);
        BEGIN
            -- Each statement below must see what the lock's last holder committed.
            IF current_setting('transaction_isolation') <> 'read committed' THEN
                RAISE EXCEPTION 'apple_id_mock_commit_steps runs at READ COMMITTED only, not %',
                    current_setting('transaction_isolation');
            END IF;
            PERFORM pg_advisory_xact_lock(\(writeLockKey));
            FOR step IN 0 .. steps - 1 LOOP
                ok := TRUE;
                WHILE r <= r_count AND r_step[r] = step LOOP
                    IF ok THEN
                        SELECT entry.seq, entry.rev INTO found_seq, found_rev FROM apple_id_mock_entries entry
                        WHERE entry.space = r_space[r] AND entry.key = r_key[r];
                        IF NOT FOUND THEN
                            found_seq := 0;
                            found_rev := 0;
                        END IF;
                        ok := found_seq = r_seq[r] AND found_rev = r_rev[r];
                    END IF;
                    r := r + 1;
                END LOOP;
                WHILE w <= w_count AND w_step[w] = step LOOP
                    IF ok AND w_put[w] THEN
                        INSERT INTO apple_id_mock_entries AS entry (space, key, value, expires_at, due_at, grp)
                        VALUES (w_space[w], w_key[w], w_value[w], NULLIF(w_expires[w], 'NaN'), NULLIF(w_due[w], 'NaN'),
                            CASE WHEN w_has_grp[w] THEN w_grp[w] END)
                        ON CONFLICT (space, key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at,
                            due_at = EXCLUDED.due_at, grp = EXCLUDED.grp, rev = entry.rev + 1;
                    ELSIF ok THEN
                        DELETE FROM apple_id_mock_entries entry WHERE entry.space = w_space[w] AND entry.key = w_key[w];
                    END IF;
                    w := w + 1;
                END LOOP;
                IF NOT ok THEN
                    refused := refused || step;
                END IF;
            END LOOP;
            RETURN refused;
        END
        $$
        """

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
