import Logging
import NIOCore
import SQLiteNIO
import ServiceLifecycle

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The durable half of the `sqlite:PATH` store: one file holding every entry, written in one SQLite
/// transaction before a step counts, so everything survives SIGTERM and `kill -9`. The working copy
/// lives in a `MemoryStore`; this file is read once at start. The file is held exclusively, so a
/// second server cannot write it at the same time.
final class SQLiteJournal: StoreJournal, Service {
    /// The schema version this build reads and writes (a file of version 1 is migrated at start).
    static let schemaVersion = "2"

    private let connection: SQLiteConnection
    private let path: String
    private let logger: Logger
    /// The loop SQLiteNIO answers this connection's statements on (see `StoreJournal`).
    let writeExecutor: (any TaskExecutor)?

    private init(connection: SQLiteConnection, path: String, logger: Logger) {
        self.connection = connection
        self.path = path
        self.logger = logger
        writeExecutor = EventLoopTaskExecutor(loop: connection.eventLoop)
    }

    /// Opens (creating on first start) the file at `path` and checks its schema version.
    static func open(path: String, logger: Logger) async throws(StoreOpeningError) -> SQLiteJournal {
        let location = "sqlite:\(path)"
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(storage: .file(path: path))
        } catch {
            throw StoreOpeningError(location: location, cause: "cannot open the file: \(Self.reason(error))")
        }
        let journal = SQLiteJournal(connection: connection, path: path, logger: logger)
        do {
            try await journal.prepareSchema()
        } catch let error as StoreOpeningError {
            await journal.close()
            throw error
        } catch {
            await journal.close()
            let reason = Self.reason(error)
            let cause =
                reason.contains("locked") || reason.contains("busy")
                ? "the file is in use by another apple-id-mock process" : reason
            throw StoreOpeningError(location: location, cause: cause)
        }
        return journal
    }

    private func prepareSchema() async throws {
        // SQLiteNIO's busy handler waits forever for a lock; a file another process holds is refused
        // after a second instead.
        _ = try await connection.query("PRAGMA busy_timeout = 1000")
        _ = try await connection.query("PRAGMA locking_mode = EXCLUSIVE")
        _ = try await connection.query("PRAGMA journal_mode = WAL")
        _ = try await connection.query("PRAGMA synchronous = NORMAL")
        // SQLite's default page cache (2 MiB): at the end of every transaction SQLite scans the
        // cache's whole hash table (pcache1Truncate), which costs a larger cache more than the reads
        // it spares (the file's pages stay in the kernel's cache).
        // Checkpoints every 4,000 pages (16 MiB of WAL) copy each hot page once per more steps.
        _ = try await connection.query("PRAGMA cache_size = -2000")
        _ = try await connection.query("PRAGMA wal_autocheckpoint = 4000")
        let tables = Set(
            try await connection.query("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap {
                $0.column("name")?.string
            })
        if tables.isEmpty {
            try await inTransaction {
                for statement in Self.schema { _ = try await connection.query(statement) }
                _ = try await connection.query(
                    "INSERT INTO apple_id_mock_meta (name, value) VALUES ('schema_version', ?)",
                    [.text(Self.schemaVersion)])
            }
            logger.notice("created state file", metadata: ["idp.path": .string(path)])
            return
        }
        guard tables.contains("apple_id_mock_meta") else {
            throw StoreOpeningError(
                location: "sqlite:\(path)",
                cause:
                    "the file is an SQLite database but not an apple-id-mock state file (tables: \(tables.sorted().joined(separator: ", ")))"
            )
        }
        var version = try await connection.query(
            "SELECT value FROM apple_id_mock_meta WHERE name = 'schema_version'"
        ).first?.column("value")?.string
        if version == "1" {
            try await inTransaction {
                for statement in Self.migrationFrom1 { _ = try await connection.query(statement) }
            }
            logger.notice(
                "state file migrated from schema version 1 to \(Self.schemaVersion)",
                metadata: ["idp.path": .string(path)])
            version = Self.schemaVersion
        }
        guard version == Self.schemaVersion else {
            throw StoreOpeningError(
                location: "sqlite:\(path)",
                cause:
                    "the file has state schema version \(version ?? "none"); this apple-id-mock reads version \(Self.schemaVersion). Use a new file, or the release that wrote it"
            )
        }
        // A write lock now, so a second process is refused at start rather than at its first write.
        _ = try await connection.query("BEGIN IMMEDIATE")
        _ = try await connection.query("COMMIT")
    }

    /// The entries' table: a row per entry, found by the entry's insertion number (`seq`, the
    /// table's row id), which the working copy keeps for the entry's life (a replaced entry keeps
    /// it; one deleted and written again gets a new one). New codes and tokens, most of what is
    /// written, are then appended at the table's end: with rows found by `(space, key)`, each one
    /// went into a page of that index at random, and every commit wrote many pages to the WAL. The
    /// working copy keeps the keys unique; the file is read whole, in order, at start.
    private static let entriesTable = """
        CREATE TABLE apple_id_mock_entries (
            seq INTEGER PRIMARY KEY, space TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
            expires_at REAL, due_at REAL, grp TEXT)
        """

    private static let schema = [
        "CREATE TABLE apple_id_mock_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)", entriesTable,
    ]

    /// A file of version 1 (rows found by `(space, key)`) made version 2, in one transaction: the
    /// rows copied in order, numbered as they were (renumbered in the same order should two share a
    /// number, which version 1 did not forbid).
    private static let migrationFrom1 = [
        "ALTER TABLE apple_id_mock_entries RENAME TO apple_id_mock_entries_v1",
        entriesTable,
        """
        INSERT INTO apple_id_mock_entries (seq, space, key, value, expires_at, due_at, grp)
        SELECT CASE WHEN (SELECT count(DISTINCT seq) = count(*) FROM apple_id_mock_entries_v1) THEN seq
            ELSE row_number() OVER (ORDER BY seq, rowid) END, space, key, value, expires_at, due_at, grp
        FROM apple_id_mock_entries_v1 ORDER BY seq, rowid
        """,
        "DROP TABLE apple_id_mock_entries_v1",
        "UPDATE apple_id_mock_meta SET value = '\(schemaVersion)' WHERE name = 'schema_version'",
    ]

    /// Every entry in the file, decoded, and the highest number a row has (`nextSeq` must pass it:
    /// a row of a space this build does not know is kept, and a new entry given its number would
    /// replace it). Should two rows hold one entry (the file changed by hand, say), the newer is
    /// kept and the older deleted: rows are found by number, so an older one left behind would come
    /// back once the newer one is deleted.
    func loadEntries() async throws(StoreOpeningError) -> (entries: [(EntryRef, MemoryEntry)], lastSeq: Int64) {
        do {
            var entries: [(EntryRef, MemoryEntry)] = []
            var seqs: [EntryRef: Int64] = [:]
            var stale: [Int64] = []
            var lastSeq: Int64 = 0
            let rows = try await connection.query(
                "SELECT space, key, value, expires_at, due_at, grp, seq FROM apple_id_mock_entries ORDER BY seq")
            for row in rows {
                guard let space = row.column("space")?.string, let key = row.column("key")?.string,
                    let text = row.column("value")?.string, let seq = row.column("seq")?.integer
                else { continue }
                lastSeq = max(lastSeq, Int64(seq))
                guard let coding = Spaces.registeredSpace(named: space) else {
                    logger.warning("unknown space in state file, skipped", metadata: ["idp.space": .string(space)])
                    continue
                }
                let value = try coding.decode(Data(text.utf8))
                let index = EntryIndex(
                    expiresAt: row.column("expires_at")?.double.map(Date.init(timeIntervalSince1970:)),
                    dueAt: row.column("due_at")?.double.map(Date.init(timeIntervalSince1970:)),
                    group: row.column("grp")?.string)
                let ref = EntryRef(space: space, key: key)
                if let older = seqs.updateValue(Int64(seq), forKey: ref) { stale.append(older) }
                entries.append((ref, MemoryEntry(value: value, index: index, seq: Int64(seq))))
            }
            if !stale.isEmpty {
                logger.warning(
                    "state file held older rows of entries it holds again: deleted",
                    metadata: ["idp.path": .string(path), "idp.rows": "\(stale.count)"])
                try await inTransaction {
                    for statement in Self.deletions(of: stale) { try await run(statement.sql, statement.binds) }
                }
            }
            return (entries, lastSeq)
        } catch {
            throw StoreOpeningError(location: "sqlite:\(path)", cause: "cannot read the state: \(Self.reason(error))")
        }
    }

    /// How many entries one statement writes or deletes: a batch of steps is a few statements, not
    /// a round trip per entry (SQLite allows 32,766 parameters a statement; an upsert takes 7 a row).
    static let rowsPerStatement = 500

    /// Writes `changes` (a batch of steps) in one SQLite transaction, or as one statement when that
    /// is all it takes (a statement is atomic on its own): emptied spaces first, then the rows of
    /// deleted or renumbered entries (`retired`), then the written entries by number,
    /// `rowsPerStatement` entries a statement.
    func write(_ changes: StoreChanges) async throws {
        do {
            // One scan of the table for all emptied spaces (rows are found by number, not by space).
            var statements: [(sql: String, binds: [SQLiteData])] = []
            if !changes.cleared.isEmpty {
                let marks = repeatElement("?", count: changes.cleared.count).joined(separator: ", ")
                statements.append(
                    ("DELETE FROM apple_id_mock_entries WHERE space IN (\(marks))", changes.cleared.map { .text($0) }))
            }
            var written: [(ref: EntryRef, entry: MemoryEntry)] = []
            for (ref, entry) in changes.writes {
                if let entry { written.append((ref, entry)) }
            }
            statements += Self.deletions(of: changes.retired)
            for start in stride(from: 0, to: written.count, by: Self.rowsPerStatement) {
                statements.append(
                    try Self.upsert(of: written[start..<min(start + Self.rowsPerStatement, written.count)]))
            }
            if statements.count == 1, let only = statements.first {
                try await run(only.sql, only.binds)
                return
            }
            try await inTransaction {
                for statement in statements { try await run(statement.sql, statement.binds) }
            }
        } catch {
            throw StoreUnavailable(cause: "writing \(path) failed: \(Self.reason(error))")
        }
    }

    /// A value as the file stores it: JSON text, encoded by the step that wrote it (`prepare`).
    struct EncodedValue: Sendable {
        var text: String
    }

    /// Each written value encoded as the file stores it, by the step itself (see `StoreJournal`).
    func prepare(_ changes: StoreChanges) throws -> StoreChanges {
        var prepared = changes
        for (ref, entry) in changes.writes {
            guard var entry else { continue }
            entry.value = EncodedValue(text: try Self.encode(entry.value, in: ref.space))
            prepared.writes[ref] = entry
        }
        return prepared
    }

    /// `value`, of the space named `space`, as JSON text.
    private static func encode(_ value: any Sendable, in space: String) throws -> String {
        guard let coding = Spaces.registeredSpace(named: space) else { throw UnknownSpace(name: space) }
        return try coding.encodeText(value)
    }

    /// The statements deleting the rows numbered `seqs`, `rowsPerStatement` a statement.
    private static func deletions(of seqs: [Int64]) -> [(sql: String, binds: [SQLiteData])] {
        stride(from: 0, to: seqs.count, by: rowsPerStatement).map { start in
            let part = seqs[start..<min(start + rowsPerStatement, seqs.count)]
            let marks = repeatElement("?", count: part.count).joined(separator: ", ")
            return ("DELETE FROM apple_id_mock_entries WHERE seq IN (\(marks))", part.map { .integer(Int($0)) })
        }
    }

    /// One statement writing `entries`, each as the row numbered with the insertion number it has
    /// in memory (a replaced entry keeps its number, so its row is replaced).
    private static func upsert(of entries: ArraySlice<(ref: EntryRef, entry: MemoryEntry)>) throws -> (
        sql: String, binds: [SQLiteData]
    ) {
        let rows = repeatElement("(?, ?, ?, ?, ?, ?, ?)", count: entries.count).joined(separator: ", ")
        var binds: [SQLiteData] = []
        binds.reserveCapacity(entries.count * 7)
        for (ref, entry) in entries {
            let text = try (entry.value as? EncodedValue)?.text ?? encode(entry.value, in: ref.space)
            binds += [
                .text(ref.space), .text(ref.key), .text(text), time(entry.index.expiresAt), time(entry.index.dueAt),
                entry.index.group.map { .text($0) } ?? .null, .integer(Int(entry.seq)),
            ]
        }
        let sql =
            "INSERT OR REPLACE INTO apple_id_mock_entries (space, key, value, expires_at, due_at, grp, seq) VALUES \(rows)"
        return (sql, binds)
    }

    /// Runs one statement whether or not the calling task is cancelled. SQLiteNIO's async `query`
    /// skips a statement queued by a cancelled task: a batch's writer whose request or service was
    /// cancelled would fail every step of the batch, and one cancelled after `BEGIN` would skip its
    /// `ROLLBACK` too, leaving the connection inside a transaction that a later write's `ROLLBACK`
    /// undoes after its steps were answered.
    private func run(_ sql: String, _ binds: [SQLiteData] = []) async throws {
        let rows: EventLoopFuture<[SQLiteRow]> = connection.query(sql, binds)
        _ = try await rows.get()
    }

    private func inTransaction(_ body: () async throws -> Void) async throws {
        try await run("BEGIN IMMEDIATE")
        do {
            try await body()
            try await run("COMMIT")
        } catch {
            try? await run("ROLLBACK")
            throw error
        }
    }

    /// Keeps the file open until the server shuts down, then closes it.
    func run() async throws {
        try? await gracefulShutdown()
        await close()
    }

    func close() async {
        try? await connection.close()
    }

    private static func time(_ date: Date?) -> SQLiteData {
        date.map { .float($0.timeIntervalSince1970) } ?? .null
    }

    private static func reason(_ error: any Error) -> String {
        (error as? SQLiteError)?.message ?? "\(error)"
    }
}
