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
        // Added after the first release of schema version 1: made on every start, emptied with new
        // state tables (their sequence starts again).
        _ = try await connection.query(PostgresQuery(unsafeSQL: pruneMarks), logger: logger)
        if found == nil { _ = try await connection.query("DELETE FROM apple_id_mock_prune_marks", logger: logger) }
        _ = try await connection.query(PostgresQuery(unsafeSQL: pruneFunction), logger: logger)
        _ = try await connection.query(PostgresQuery(unsafeSQL: commitFunction), logger: logger)
    }

    /// Where each pruned space's entries begin: none of the space has a lower `seq` (see `pruneFunction`).
    private static let pruneMarks = """
        CREATE TABLE IF NOT EXISTS apple_id_mock_prune_marks (space TEXT PRIMARY KEY, seq BIGINT NOT NULL)
        """

    /// Deletes the oldest entries of `p_space` beyond the newest `p_keep` that are not due; call it
    /// under the write lock. The deleted rows stay in the order index until a vacuum, and a journal
    /// under load leaves them faster than autovacuum takes them away: a delete of everything up to
    /// the cutoff walked all of them from the space's start, slower with every prune. So the delete
    /// starts at the space's mark, below which it holds nothing, and moves the mark to the first entry
    /// it could not delete (one due now) or past the cutoff.
    /// Each statement is planned for its values (a plan kept from a small table would scan a large one).
    private static let pruneFunction = """
        CREATE OR REPLACE FUNCTION apple_id_mock_prune(p_space TEXT, p_keep INT) RETURNS VOID LANGUAGE plpgsql AS $$
        DECLARE
            cutoff BIGINT;
            floor BIGINT;
        BEGIN
            EXECUTE 'SELECT seq FROM apple_id_mock_entries WHERE space = $1 AND due_at IS NULL '
                'ORDER BY seq DESC OFFSET $2 LIMIT 1' INTO cutoff USING p_space, p_keep;
            IF cutoff IS NULL THEN
                RETURN;
            END IF;
            SELECT mark.seq INTO floor FROM apple_id_mock_prune_marks mark WHERE mark.space = p_space;
            -- The cutoff is an entry's, so never below the mark, unless the mark outlived its
            -- entries' sequence (state tables made anew): then the space is walked from its start.
            IF floor IS NULL OR floor > cutoff THEN
                floor := 0;
            END IF;
            EXECUTE 'DELETE FROM apple_id_mock_entries WHERE space = $1 AND due_at IS NULL AND seq >= $2 AND seq <= $3'
                USING p_space, floor, cutoff;
            -- Through the index of due entries (`due_at >= …`, not `IS NOT NULL`, and `seq + 0`):
            -- otherwise planned as a walk of the order index from the space's start.
            EXECUTE 'SELECT least($2 + 1, min(seq + 0)) FROM apple_id_mock_entries '
                'WHERE space = $1 AND due_at >= ''-Infinity'' AND seq <= $2' INTO floor USING p_space, cutoff;
            INSERT INTO apple_id_mock_prune_marks AS mark (space, seq) VALUES (p_space, floor)
                ON CONFLICT (space) DO UPDATE SET seq = EXCLUDED.seq;
        END
        $$
        """

    /// In how many rounds of a call inserts expected new are made without a lookup (see the function).
    private static let plainInsertRounds = 4

    /// Commits a batch of optimistic steps in order, under the write lock: a step whose every read
    /// entry still has the version it saw (`(0, 0)`: absent) is written, the others are not, and
    /// their positions (from 0) are returned, to be run again. The steps come in rounds (`rounds`,
    /// one per step, in step order): no step writes what another of its round reads or writes, so
    /// each round is checked, then written, as a whole, a few statements for all its steps; a later
    /// round sees what an earlier one wrote; a round's prunes (`p_…`: `apple_id_mock_prune`) come
    /// after its writes.
    ///
    /// The checks (`c_…`, each in one round) are shared: `r_step` and `r_check` say which steps read
    /// each (its position, from 1). Each step writes an entry at most once (`w_kind` 0: delete, 1:
    /// insert or update, 2: insert, expected absent: in the first rounds with no lookup first, and
    /// if one was there after all, the round's inserts are made again as updates); an absent
    /// expiry or due time is NaN. Each entry checked is looked up by its key whatever the
    /// statistics (`LATERAL … LIMIT 1`: a plan made while the table was small does not scan it later).
    private static let commitFunction = """
        CREATE OR REPLACE FUNCTION apple_id_mock_commit_steps(
            rounds INT[], c_round INT[], c_space TEXT[], c_key TEXT[], c_seq BIGINT[], c_rev BIGINT[],
            r_step INT[], r_check INT[],
            w_step INT[], w_kind SMALLINT[], w_space TEXT[], w_key TEXT[], w_value TEXT[],
            w_expires DOUBLE PRECISION[], w_due DOUBLE PRECISION[], w_has_grp BOOL[], w_grp TEXT[],
            p_step INT[], p_space TEXT[], p_keep INT[])
        RETURNS INT[] LANGUAGE plpgsql AS $$
        DECLARE
            refused INT[] := '{}';
            failed INT[];
            round_count INT := coalesce(rounds[array_upper(rounds, 1)], -1) + 1;
            any_upsert BOOL := 1 = ANY(w_kind);
            any_insert BOOL := 2 = ANY(w_kind);
            fresh_first BOOL;
            any_delete BOOL := 0 = ANY(w_kind);
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
                failed := ARRAY(
                    SELECT checked.position::INT
                    FROM unnest(c_round, c_space, c_key, c_seq, c_rev) WITH ORDINALITY
                        AS checked(in_round, space, key, seq, rev, position)
                    LEFT JOIN LATERAL (
                        SELECT entry.seq, entry.rev FROM apple_id_mock_entries entry
                        WHERE entry.space = checked.space AND entry.key = checked.key LIMIT 1
                    ) found ON TRUE
                    WHERE checked.in_round = round
                        AND (coalesce(found.seq, 0) <> checked.seq OR coalesce(found.rev, 0) <> checked.rev));
                IF cardinality(failed) > 0 THEN
                    refused := refused || ARRAY(
                        SELECT DISTINCT read.step FROM unnest(r_step, r_check) AS read(step, check_position)
                        WHERE read.check_position = ANY(failed));
                END IF;
                IF any_delete THEN
                    FOR gone IN
                        SELECT deleted.space, deleted.key FROM unnest(w_step, w_kind, w_space, w_key)
                            AS deleted(step, kind, space, key)
                        WHERE deleted.kind = 0 AND rounds[deleted.step + 1] = round AND deleted.step <> ALL(refused)
                    LOOP
                        DELETE FROM apple_id_mock_entries entry WHERE entry.space = gone.space AND entry.key = gone.key;
                    END LOOP;
                END IF;
                -- Inserts expected new go without a lookup in the first rounds only: each such round
                -- is a subtransaction (a few per call, far from the 64 a backend keeps track of).
                fresh_first := round < \(plainInsertRounds) AND any_insert AND EXISTS (
                    SELECT FROM unnest(w_step, w_kind) AS written(step, kind)
                    WHERE written.kind = 2 AND rounds[written.step + 1] = round);
                IF fresh_first THEN
                    BEGIN
                        INSERT INTO apple_id_mock_entries (space, key, value, expires_at, due_at, grp)
                        SELECT written.space, written.key, written.value, NULLIF(written.expires, 'NaN'),
                            NULLIF(written.due, 'NaN'), CASE WHEN written.has_grp THEN written.grp END
                        FROM unnest(w_step, w_kind, w_space, w_key, w_value, w_expires, w_due, w_has_grp, w_grp)
                            AS written(step, kind, space, key, value, expires, due, has_grp, grp)
                        WHERE written.kind = 2 AND rounds[written.step + 1] = round AND written.step <> ALL(refused);
                    EXCEPTION WHEN unique_violation THEN
                        -- One was there after all (a key put without being read): made as updates below.
                        fresh_first := false;
                    END;
                END IF;
                IF any_upsert OR (any_insert AND NOT fresh_first) THEN
                    INSERT INTO apple_id_mock_entries AS entry (space, key, value, expires_at, due_at, grp)
                    SELECT written.space, written.key, written.value, NULLIF(written.expires, 'NaN'),
                        NULLIF(written.due, 'NaN'), CASE WHEN written.has_grp THEN written.grp END
                    FROM unnest(w_step, w_kind, w_space, w_key, w_value, w_expires, w_due, w_has_grp, w_grp)
                        AS written(step, kind, space, key, value, expires, due, has_grp, grp)
                    WHERE (written.kind = 1 OR (written.kind = 2 AND NOT fresh_first))
                        AND rounds[written.step + 1] = round AND written.step <> ALL(refused)
                    ON CONFLICT (space, key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at,
                        due_at = EXCLUDED.due_at, grp = EXCLUDED.grp, rev = entry.rev + 1;
                END IF;
                FOR pruned IN
                    SELECT kept.space, kept.keep FROM unnest(p_step, p_space, p_keep) AS kept(step, space, keep)
                    WHERE rounds[kept.step + 1] = round AND kept.step <> ALL(refused)
                LOOP
                    PERFORM apple_id_mock_prune(pruned.space, pruned.keep);
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
