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
    /// The schema version this build reads and writes.
    static let schemaVersion = "1"

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
        // cache's whole hash table (pcache1Truncate, about 60 µs a commit with 32 MiB), which cost
        // more than the reads a larger cache spares (the file's pages stay in the kernel's cache).
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
        let version = try await connection.query(
            "SELECT value FROM apple_id_mock_meta WHERE name = 'schema_version'"
        ).first?.column("value")?.string
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

    private static let schema = [
        "CREATE TABLE apple_id_mock_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
        """
        CREATE TABLE apple_id_mock_entries (
            space TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, expires_at REAL, due_at REAL, grp TEXT,
            seq INTEGER NOT NULL, PRIMARY KEY (space, key))
        """,
    ]

    /// Every entry in the file, decoded.
    func loadEntries() async throws(StoreOpeningError) -> [(EntryRef, MemoryEntry)] {
        do {
            var entries: [(EntryRef, MemoryEntry)] = []
            let rows = try await connection.query(
                "SELECT space, key, value, expires_at, due_at, grp, seq FROM apple_id_mock_entries ORDER BY seq")
            for row in rows {
                guard let space = row.column("space")?.string, let key = row.column("key")?.string,
                    let text = row.column("value")?.string, let seq = row.column("seq")?.integer
                else { continue }
                guard let coding = Spaces.registeredSpace(named: space) else {
                    logger.warning("unknown space in state file, skipped", metadata: ["idp.space": .string(space)])
                    continue
                }
                let value = try coding.decode(Data(text.utf8))
                let index = EntryIndex(
                    expiresAt: row.column("expires_at")?.double.map(Date.init(timeIntervalSince1970:)),
                    dueAt: row.column("due_at")?.double.map(Date.init(timeIntervalSince1970:)),
                    group: row.column("grp")?.string)
                entries.append(
                    (EntryRef(space: space, key: key), MemoryEntry(value: value, index: index, seq: Int64(seq))))
            }
            return entries
        } catch {
            throw StoreOpeningError(location: "sqlite:\(path)", cause: "cannot read the state: \(Self.reason(error))")
        }
    }

    /// How many entries one statement writes or deletes: a batch of steps is a few statements, not
    /// a round trip per entry (SQLite allows 32,766 parameters a statement; an upsert takes 7 a row).
    static let rowsPerStatement = 500

    /// Writes `changes` (a batch of steps) in one SQLite transaction, or as one statement when that
    /// is all it takes (a statement is atomic on its own): emptied spaces first, then deletions and
    /// upserts, `rowsPerStatement` entries a statement.
    func write(_ changes: StoreChanges) async throws {
        do {
            var statements: [(sql: String, binds: [SQLiteData])] = changes.cleared.map {
                ("DELETE FROM apple_id_mock_entries WHERE space = ?", [.text($0)])
            }
            var deleted: [EntryRef] = []
            var written: [(ref: EntryRef, entry: MemoryEntry)] = []
            for (ref, entry) in changes.writes {
                if let entry { written.append((ref, entry)) } else { deleted.append(ref) }
            }
            for start in stride(from: 0, to: deleted.count, by: Self.rowsPerStatement) {
                statements.append(Self.deletion(of: deleted[start..<min(start + Self.rowsPerStatement, deleted.count)]))
            }
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

    /// One statement deleting `refs`.
    private static func deletion(of refs: ArraySlice<EntryRef>) -> (sql: String, binds: [SQLiteData]) {
        let rows = repeatElement("(?, ?)", count: refs.count).joined(separator: ", ")
        var binds: [SQLiteData] = []
        binds.reserveCapacity(refs.count * 2)
        for ref in refs { binds += [.text(ref.space), .text(ref.key)] }
        return ("DELETE FROM apple_id_mock_entries WHERE (space, key) IN (VALUES \(rows))", binds)
    }

    /// One statement writing `entries`, each with the insertion number it has in memory (a replaced
    /// entry keeps its first there; one deleted and written again in one batch has a new one).
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
        let sql = """
            INSERT INTO apple_id_mock_entries (space, key, value, expires_at, due_at, grp, seq) VALUES \(rows)
            ON CONFLICT (space, key) DO UPDATE SET value = excluded.value,
                expires_at = excluded.expires_at, due_at = excluded.due_at, grp = excluded.grp, seq = excluded.seq
            """
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
