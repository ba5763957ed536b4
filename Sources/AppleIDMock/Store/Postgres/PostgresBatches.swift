import Logging
import PostgresNIO
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The statements that concurrent steps share on PostgreSQL: reads of single entries (each with
/// its row version), and the commits of optimistic steps, each batch in one round trip. The store's
/// service runs the loops; a step uses them only while they run.
final class PostgresBatches: Sendable {
    /// One entry to read; `knownRevision`: leave its value out if its revision is still this one.
    struct Read: Sendable {
        var space: String
        var key: String
        var knownRevision: Int64?
    }

    /// An entry as read: its version, and its value (`nil`: absent, or unchanged from the revision known).
    struct Stored: Sendable {
        var version: EntryVersion
        var text: String?
    }

    /// What an optimistic step read (to be checked), what it writes, in order, and the spaces it
    /// prunes once written.
    struct Step: Sendable {
        var reads: [Check]
        var writes: [Write]
        var prunes: [Prune] = []
    }

    /// A prune: the oldest entries of `space` beyond the newest `keep` that are not due are deleted.
    struct Prune: Sendable {
        var space: String
        var keep: Int
    }

    /// An entry a step read, at the version it saw.
    struct Check: Sendable {
        var space: String
        var key: String
        var version: EntryVersion
    }

    /// An entry a step writes (`text` is the encoded value) or deletes (`text` is `nil`).
    struct Write: Sendable {
        var space: String
        var key: String
        var text: String?
        var index: EntryIndex
    }

    /// Reads of steps under way, many to one statement.
    let reads: BatchQueue<Read, Stored>
    /// Commits of steps, many to one call of the commit function: each step's reads are checked,
    /// in order, under the store's write lock, and its writes made only if none changed. The
    /// answer: whether the step was written (`false`: run it again).
    let commits: BatchQueue<Step, Bool>
    /// How many read statements may be under way at once (each on its own connection).
    private static let readWorkers = 2
    /// How many commit calls may be under way at once (they take the write lock in turn; another
    /// batch travels meanwhile).
    private static let commitWorkers = 1
    /// Whether the loops run (steps use them only then).
    let running = Atomic<Bool>(false)
    /// How many statements the loops sent (for tests and metrics).
    let statements = Atomic<Int>(0)
    /// Entries as last read, the control records included: a step reads them without a round
    /// trip, and the commit's check catches a stale one (see `EntryCache`).
    let entries = EntryCache()

    private let logger: Logger

    /// Batches whose callers wait at most `timeout` for an answer (then fail as an outage).
    init(timeout: Duration, logger: Logger) {
        self.logger = logger
        let cause = "PostgreSQL did not answer within \(timeout)"
        reads = BatchQueue(limit: 1000, timeout: timeout, timeoutCause: cause)
        commits = BatchQueue(limit: 500, timeout: timeout, timeoutCause: cause)
    }

    /// Runs the workers until the task is cancelled. Each holds a connection of `client()` (the pool
    /// in use: it changes after an outage) and runs on that connection's event loop, so a statement's
    /// answer reaches its worker without a thread hand-off; a worker whose connection fails takes
    /// another.
    func run(client: @escaping @Sendable () -> PostgresClient) async {
        let logger = self.logger
        reads.open()
        commits.open()
        running.store(true, ordering: .sequentiallyConsistent)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<Self.readWorkers {
                group.addTask {
                    await self.serve(self.reads, client: client) { batch, connection in
                        try await Self.read(batch, on: connection, logger: logger)
                    }
                }
            }
            for _ in 0..<Self.commitWorkers {
                group.addTask {
                    await self.serve(self.commits, client: client) { batch, connection in
                        try await Self.commit(batch, on: connection, logger: logger)
                    }
                }
            }
            group.addTask { await self.reads.watch() }
            group.addTask { await self.commits.watch() }
        }
        running.store(false, ordering: .sequentiallyConsistent)
        let closing = "the server is shutting down"
        reads.close(closing)
        commits.close(closing)
    }

    /// One worker of `queue`: leases a connection, answers batches on it from its event loop, and
    /// leases another when it closes or fails; while none can be had, tries again every 100 ms.
    private func serve<Request: Sendable, Response: Sendable>(
        _ queue: BatchQueue<Request, Response>, client: @escaping @Sendable () -> PostgresClient,
        perform: @escaping @Sendable ([Request], PostgresConnection) async throws -> [Result<Response, any Error>]
    ) async {
        while !Task.isCancelled {
            do {
                try await client().withConnection { connection in
                    // The commit call is a transaction of its own: at READ COMMITTED each statement of
                    // the function sees what the write lock's last holder committed (the function
                    // refuses any other level), whatever the database's default.
                    try await connection.query(
                        "SET default_transaction_isolation = 'read committed'", logger: self.logger)
                    await withTaskExecutorPreference(EventLoopTaskExecutor(loop: connection.eventLoop)) {
                        await queue.work(
                            isUsable: { !connection.isClosed },
                            ends: { error in !((error as? PSQLError).map(PostgresErrorText.isServerError) ?? false) }
                        ) { batch in
                            self.statements.add(1, ordering: .relaxed)
                            return try await perform(batch, connection)
                        }
                    }
                }
            } catch {
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Reads every entry of `batch` in one statement.
    private static func read(_ batch: [Read], on connection: PostgresConnection, logger: Logger) async throws
        -> [Result<Stored, any Error>]
    {
        let statement = ReadEntries(
            spaces: batch.map(\.space), keys: batch.map(\.key), known: batch.map { $0.knownRevision ?? -1 })
        let rows = try await connection.execute(statement, logger: logger)
        var answers = [Result<Stored, any Error>](repeating: .success(Stored(version: .absent)), count: batch.count)
        for try await (position, seq, rev, text) in rows {
            guard let seq, let rev, position >= 1, position <= batch.count else { continue }
            answers[Int(position) - 1] = .success(Stored(version: EntryVersion(seq: seq, rev: rev), text: text))
        }
        return answers
    }

    /// Commits `batch` in one call of the commit function (one implicit transaction at READ
    /// COMMITTED, set for the worker's connection). If the database refuses the call (a value it
    /// cannot store), each step is committed alone, so that only the step at fault fails.
    private static func commit(_ batch: [Step], on connection: PostgresConnection, logger: Logger) async throws
        -> [Result<Bool, any Error>]
    {
        do {
            return try await commitTogether(batch, on: connection, logger: logger)
        } catch let error as PSQLError where batch.count > 1 && PostgresErrorText.isServerError(error) {
            var answers: [Result<Bool, any Error>] = []
            for step in batch {
                do {
                    answers += try await commitTogether([step], on: connection, logger: logger)
                } catch let error as PSQLError where PostgresErrorText.isServerError(error) {
                    answers.append(.failure(error))
                }
            }
            return answers
        }
    }

    /// Commits `batch` in one call of the commit function.
    private static func commitTogether(_ batch: [Step], on connection: PostgresConnection, logger: Logger)
        async throws -> [Result<Bool, any Error>]
    {
        var statement = CommitSteps()
        var refused: Set<Int32> = []
        for (position, step) in batch.enumerated() where !statement.append(step, at: Int32(position)) {
            refused.insert(Int32(position))
        }
        let rows = try await connection.execute(statement, logger: logger)
        for try await steps in rows { refused.formUnion(steps) }
        return (0..<batch.count).map { .success(!refused.contains(Int32($0))) }
    }
}

/// An entry's version on PostgreSQL: the row's sequence number (new on every insert) and its
/// revision (moved by every update). Absent is `(0, 0)`.
struct EntryVersion: Sendable, Hashable {
    var seq: Int64
    var rev: Int64

    static let absent = EntryVersion(seq: 0, rev: 0)
}

/// The batch read as a prepared statement (parsed and planned once per connection): each entry's
/// position in the batch, its version, and its value unless its revision is the one known.
///
/// Each entry is looked up by its key in a `LATERAL` subquery that the planner cannot merge into a
/// join (`LIMIT 1`): the plan is an index lookup per entry whatever the table's statistics. As a
/// plain join, the plan PostgreSQL keeps for the statement, made while the table was new and
/// empty, hashed the whole table on every batch.
private struct ReadEntries: PostgresPreparedStatement {
    static let name = "apple_id_mock_read_entries"
    static let sql = """
        SELECT wanted.position, entry.seq, entry.rev,
            CASE WHEN entry.rev = wanted.known THEN NULL ELSE entry.value END
        FROM unnest($1::text[], $2::text[], $3::int8[]) WITH ORDINALITY AS wanted(space, key, known, position)
        LEFT JOIN LATERAL (
            SELECT found.seq, found.rev, found.value FROM apple_id_mock_entries found
            WHERE found.space = wanted.space AND found.key = wanted.key LIMIT 1
        ) entry ON TRUE
        """
    typealias Row = (Int64, Int64?, Int64?, String?)

    var spaces: [String]
    var keys: [String]
    var known: [Int64]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(spaces)
        bindings.append(keys)
        bindings.append(known)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

/// The batch commit as a prepared statement: one call of `apple_id_mock_commit_steps` (see
/// `PostgresSchema`), answering the positions of the steps it refused. Steps are appended in order;
/// a step that reads or writes an entry that an earlier step of its round writes, or touches a
/// space it prunes, opens a new round (the function checks and writes a round as a whole), and a
/// step's writes of one entry are folded into its last.
///
/// The steps of a round that read one entry at one version share one check (every step reads the
/// control record; under load many read the same consent). A put is sent as new when the step
/// read the entry as absent (checked, so it still is) or did not read it at all (a code, a token,
/// a journal entry: new keys); the function inserts those without looking for a row to update,
/// and looks only if one was there after all.
struct CommitSteps: PostgresPreparedStatement {
    static let name = "apple_id_mock_commit_shared_checks"
    static let sql = """
        SELECT apple_id_mock_commit_steps($1::int4[], $2::int4[], $3::text[], $4::text[], $5::int8[], $6::int8[],
            $7::int4[], $8::int4[], $9::int4[], $10::int2[], $11::text[], $12::text[], $13::text[], $14::float8[],
            $15::float8[], $16::bool[], $17::text[], $18::int4[], $19::text[], $20::int4[])
        """
    typealias Row = [Int32]

    /// How the function writes an entry.
    enum WriteKind: Int16 {
        case delete = 0
        /// Inserted, or updated if it is there.
        case upsert = 1
        /// Inserted: expected absent (updated, like an upsert, if it is there after all).
        case insert = 2
    }

    var rounds: [Int32] = []
    var checkRound: [Int32] = [], checkSpace: [String] = [], checkKey: [String] = []
    var checkSeq: [Int64] = [], checkRev: [Int64] = []
    var readStep: [Int32] = [], readCheck: [Int32] = []
    var writeStep: [Int32] = [], writeKind: [Int16] = [], writeSpace: [String] = [], writeKey: [String] = []
    var writeValue: [String] = [], writeExpires: [Double] = [], writeDue: [Double] = []
    var writeHasGroup: [Bool] = [], writeGroup: [String] = []
    var pruneStep: [Int32] = [], pruneSpace: [String] = [], pruneKeep: [Int32] = []
    /// The round under way, what its steps write, the spaces they prune, and its checks (their
    /// positions, from 1).
    private var round: Int32 = 0
    private var writtenInRound: Set<EntryAddress> = []
    private var writtenInBatch: Set<EntryAddress> = []
    private var prunedInRound: Set<String> = []
    private var checksInRound: [CheckedVersion: Int32] = [:]

    /// An entry at the version a step read.
    private struct CheckedVersion: Hashable {
        var address: EntryAddress
        var version: EntryVersion
    }

    /// Adds `step`, the batch's `position`th; `false` leaves it out, refused: it read what an
    /// earlier step of the batch writes, so its check would fail unless that step's did (it runs
    /// again; a hot entry would otherwise cost a round per step).
    mutating func append(_ step: PostgresBatches.Step, at position: Int32) -> Bool {
        let reads = step.reads.map {
            CheckedVersion(address: EntryAddress(space: $0.space, key: $0.key), version: $0.version)
        }
        if reads.contains(where: { writtenInBatch.contains($0.address) }) {
            // Still one round per position: the function finds each step's round by its position.
            rounds.append(round)
            return false
        }
        var last: [EntryAddress: PostgresBatches.Write] = [:]
        var order: [EntryAddress] = []
        for write in step.writes {
            let address = EntryAddress(space: write.space, key: write.key)
            if last.updateValue(write, forKey: address) == nil { order.append(address) }
        }
        let touches =
            reads.contains { writtenInRound.contains($0.address) || prunedInRound.contains($0.address.space) }
            || order.contains { writtenInRound.contains($0) || prunedInRound.contains($0.space) }
            || step.prunes.contains { prunedInRound.contains($0.space) }
        if touches {
            round += 1
            writtenInRound = []
            prunedInRound = []
            checksInRound = [:]
        }
        writtenInRound.formUnion(order)
        writtenInBatch.formUnion(order)
        prunedInRound.formUnion(step.prunes.map(\.space))
        rounds.append(round)
        for prune in step.prunes {
            pruneStep.append(position)
            pruneSpace.append(prune.space)
            pruneKeep.append(Int32(clamping: prune.keep))
        }
        for read in reads {
            readStep.append(position)
            if let check = checksInRound[read] {
                readCheck.append(check)
                continue
            }
            let check = Int32(checkRound.count + 1)
            checksInRound[read] = check
            readCheck.append(check)
            checkRound.append(round)
            checkSpace.append(read.address.space)
            checkKey.append(read.address.key)
            checkSeq.append(read.version.seq)
            checkRev.append(read.version.rev)
        }
        for address in order {
            guard let write = last[address] else { continue }
            let seen = reads.first { $0.address == address }?.version ?? .absent
            let kind: WriteKind = write.text == nil ? .delete : seen == .absent ? .insert : .upsert
            writeStep.append(position)
            writeKind.append(kind.rawValue)
            writeSpace.append(write.space)
            writeKey.append(write.key)
            writeValue.append(write.text ?? "")
            writeExpires.append(write.index.expiresAt?.timeIntervalSince1970 ?? .nan)
            writeDue.append(write.index.dueAt?.timeIntervalSince1970 ?? .nan)
            writeHasGroup.append(write.index.group != nil)
            writeGroup.append(write.index.group ?? "")
        }
        return true
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 20)
        bindings.append(rounds)
        bindings.append(checkRound)
        bindings.append(checkSpace)
        bindings.append(checkKey)
        bindings.append(checkSeq)
        bindings.append(checkRev)
        bindings.append(readStep)
        bindings.append(readCheck)
        bindings.append(writeStep)
        bindings.append(writeKind)
        bindings.append(writeSpace)
        bindings.append(writeKey)
        bindings.append(writeValue)
        bindings.append(writeExpires)
        bindings.append(writeDue)
        bindings.append(writeHasGroup)
        bindings.append(writeGroup)
        bindings.append(pruneStep)
        bindings.append(pruneSpace)
        bindings.append(pruneKeep)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}
