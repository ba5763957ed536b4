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
    /// their positions (from 0) are returned, to be run again. The steps come in rounds (`rounds`,
    /// one per step, in step order): no step writes what another of its round reads or writes, so
    /// each round is checked, then written, as a whole, a few statements for all its steps; a later
    /// round sees what an earlier one wrote; a round's prunes (`p_…`: keep the newest `keep` entries
    /// of the space that are not due) come after its writes. Each step writes an entry at most once; an absent
    /// expiry or due time is NaN. Each entry read is looked up by its key whatever the statistics
    /// (`LATERAL … LIMIT 1`: a plan made while the table was small does not scan it later).
    private static let commitFunction = """
        CREATE OR REPLACE FUNCTION apple_id_mock_commit_steps(
            rounds INT[], r_step INT[], r_space TEXT[], r_key TEXT[], r_seq BIGINT[], r_rev BIGINT[],
            w_step INT[], w_put BOOL[], w_space TEXT[], w_key TEXT[], w_value TEXT[],
            w_expires DOUBLE PRECISION[], w_due DOUBLE PRECISION[], w_has_grp BOOL[], w_grp TEXT[],
            p_step INT[], p_space TEXT[], p_keep INT[])
        RETURNS INT[] LANGUAGE plpgsql AS $$
        DECLARE
            refused INT[] := '{}';
            round_count INT := coalesce(rounds[array_upper(rounds, 1)], -1) + 1;
            gone RECORD;
            pruned RECORD;
        BEGIN
            -- Each statement below must see what the lock's last holder committed.
            IF current_setting('transaction_isolation') <> 'read committed' THEN
                RAISE EXCEPTION 'apple_id_mock_commit_steps runs at READ COMMITTED only, not %',
                    current_setting('transaction_isolation');
            END IF;
            PERFORM pg_advisory_xact_lock(\(writeLockKey));
            FOR round IN 0 .. round_count - 1 LOOP
                refused := refused || ARRAY(
                    SELECT DISTINCT checked.step
                    FROM unnest(r_step, r_space, r_key, r_seq, r_rev) AS checked(step, space, key, seq, rev)
                    LEFT JOIN LATERAL (
                        SELECT entry.seq, entry.rev FROM apple_id_mock_entries entry
                        WHERE entry.space = checked.space AND entry.key = checked.key LIMIT 1
                    ) found ON TRUE
                    WHERE rounds[checked.step + 1] = round
                        AND (coalesce(found.seq, 0) <> checked.seq OR coalesce(found.rev, 0) <> checked.rev));
                FOR gone IN
                    SELECT deleted.space, deleted.key FROM unnest(w_step, w_put, w_space, w_key)
                        AS deleted(step, put, space, key)
                    WHERE NOT deleted.put AND rounds[deleted.step + 1] = round AND deleted.step <> ALL(refused)
                LOOP
                    DELETE FROM apple_id_mock_entries entry WHERE entry.space = gone.space AND entry.key = gone.key;
                END LOOP;
                INSERT INTO apple_id_mock_entries AS entry (space, key, value, expires_at, due_at, grp)
                SELECT written.space, written.key, written.value, NULLIF(written.expires, 'NaN'),
                    NULLIF(written.due, 'NaN'), CASE WHEN written.has_grp THEN written.grp END
                FROM unnest(w_step, w_put, w_space, w_key, w_value, w_expires, w_due, w_has_grp, w_grp)
                    AS written(step, put, space, key, value, expires, due, has_grp, grp)
                WHERE written.put AND rounds[written.step + 1] = round AND written.step <> ALL(refused)
                ON CONFLICT (space, key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at,
                    due_at = EXCLUDED.due_at, grp = EXCLUDED.grp, rev = entry.rev + 1;
                FOR pruned IN
                    SELECT kept.space, kept.keep FROM unnest(p_step, p_space, p_keep) AS kept(step, space, keep)
                    WHERE rounds[kept.step + 1] = round AND kept.step <> ALL(refused)
                LOOP
                    -- Planned for each space (a plan kept from a small table would scan a large one).
                    EXECUTE 'DELETE FROM apple_id_mock_entries WHERE space = $1 AND due_at IS NULL AND seq <= ('
                        'SELECT seq FROM apple_id_mock_entries WHERE space = $1 AND due_at IS NULL '
                        'ORDER BY seq DESC OFFSET $2 LIMIT 1)' USING pruned.space, pruned.keep;
                END LOOP;
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
