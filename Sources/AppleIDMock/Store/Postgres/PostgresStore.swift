import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The state in PostgreSQL, shared by any number of replicas. A step runs optimistically: its reads
/// share statements with concurrent steps' (`PostgresBatches`), and its writes are committed in one
/// call with other steps', each only if nothing it read changed meanwhile, else it runs again. Every
/// write, the commit function's and that of a step that lists, prunes or clears (run in a
/// transaction of its own), holds one advisory lock: the steps of all replicas are serializable, so
/// a code is redeemed exactly once however many replicas race for it. A step that cannot reach the database within a few
/// seconds fails with `StoreUnavailable`; after that, steps fail at once (no request waits) while a
/// probe connects twice a second, and when the database answers again a fresh pool takes over.
/// Housekeeping (`PostgresStore+Housekeeping`) and what it answers as a `SharedStore`
/// (`PostgresStore+Shared`) are in files of their own; the area's map is `docs/postgres-store.md`.
final class PostgresStore: SharedStore, Service {
    let description: String
    private let configuration: PostgresClient.Configuration
    /// One connection's configuration (the one `open` checked), for the recovery probe.
    private let probeConfiguration: PostgresConnection.Configuration
    /// The pool in use (replaced after an outage, so no reconnection backoff delays recovery).
    private let pool: Mutex<PostgresClient>
    /// Where the store logs (its statements, outages and recoveries).
    let logger: Logger
    /// How long a step may wait for the database before the request is answered with a 503.
    private let stepTimeout: Duration
    /// Why the database is unreachable, while it is (`nil`: it answered last time).
    private let outage = Mutex<String?>(nil)
    /// The connection `open` checked the schema on. The pool runs only once the server starts, so
    /// until then (while the stored state is read) steps run on this connection, one at a time.
    private let startupConnection: Mutex<PostgresConnection?>
    private let startupLock = AsyncLock()
    /// Woken by `StoreWatchService`, which reads `changeMarks` while anyone waits.
    let watch = StoreWatch()
    /// The statements concurrent steps share (run by `run`).
    private let batches: PostgresBatches
    /// How many times a step runs optimistically before it takes the write lock for itself.
    private static let optimisticAttempts = 8

    private init(
        configuration: PostgresClient.Configuration, probeConfiguration: PostgresConnection.Configuration,
        startupConnection: PostgresConnection, description: String, stepTimeout: Duration, logger: Logger
    ) {
        self.configuration = configuration
        self.stepTimeout = stepTimeout
        self.batches = PostgresBatches(timeout: stepTimeout, logger: logger)
        self.probeConfiguration = probeConfiguration
        self.pool = Mutex(PostgresClient(configuration: configuration, backgroundLogger: logger))
        self.startupConnection = Mutex(startupConnection)
        self.description = description
        self.logger = logger
    }

    /// Connects once to check the database and create the tables, then starts the pool. A step
    /// that waits for the database longer than `stepTimeout` fails as an outage.
    static func open(
        _ location: StoreLocation.PostgresLocation, description: String, stepTimeout: Duration = .seconds(5),
        logger: Logger
    ) async throws(StoreOpeningError) -> PostgresStore {
        let configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable)
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
            do {
                try await PostgresSchema.prepare(connection, location: description, logger: logger)
            } catch {
                try? await connection.close()
                throw error
            }
        } catch let error as StoreOpeningError {
            throw error
        } catch {
            throw StoreOpeningError(location: description, cause: PostgresErrorText.describe(error))
        }
        var clientConfiguration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable)
        clientConfiguration.options.connectTimeout = .seconds(3)
        clientConfiguration.options.maximumConnections = 40
        return PostgresStore(
            configuration: clientConfiguration, probeConfiguration: configuration, startupConnection: connection,
            description: description, stepTimeout: stepTimeout, logger: logger)
    }

    private var client: PostgresClient { pool.withLock { $0 } }

    /// Runs the connection pool and the shared statements' loops until the server shuts down, and
    /// closes the start-up connection. After an outage, as soon as a probe connects again, a fresh
    /// pool replaces the old one.
    func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.runPools() }
            // The shared statements' workers stop first, so that no commit is cut by the pool's end.
            await cancelWhenGracefulShutdown {
                await self.batches.run(client: { self.client })
            }
            group.cancelAll()
        }
    }

    /// Runs the pool in use, and the next one after an outage, until cancelled.
    private func runPools() async {
        while !Task.isCancelled {
            let current = self.client
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await current.run() }
                // The pool runs now: steps leave the start-up connection for it.
                let startup = await self.startupLock.withLock { self.startupConnection.withLock { $0.take() } }
                try? await startup?.close()
                await self.waitForRecovery()
                group.cancelAll()
            }
            guard !Task.isCancelled else { return }
            self.pool.withLock {
                $0 = PostgresClient(configuration: self.configuration, backgroundLogger: self.logger)
            }
            self.outage.withLock { $0 = nil }
            self.logger.notice("PostgreSQL answers again", metadata: ["idp.store": .string(self.description)])
        }
    }

    /// Returns once an outage began and the database accepts a connection again (checked twice a second).
    private func waitForRecovery() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(500))
            guard outage.withLock({ $0 }) != nil else { continue }
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: probeConfiguration,
                    id: 0, logger: logger)
                try await connection.query("SELECT 1", logger: logger)
                try? await connection.close()
                // A pool that reaches the database again is kept (its steps under way are not cut);
                // one stuck in reconnection backoff is replaced.
                if (try? await withDeadlineUnchecked(seconds: 1, { _ = try await self.client.query("SELECT 1") }))
                    != nil
                {
                    outage.withLock { $0 = nil }
                    logger.notice("PostgreSQL answers again", metadata: ["idp.store": .string(description)])
                    continue
                }
                return
            } catch {
                outage.withLock { $0 = "PostgreSQL is unreachable: \(PostgresErrorText.describe(error))" }
            }
        }
    }

    /// Closes the start-up connection (the pool opens connections only while it runs).
    func shutdownUnstarted() async {
        let startup = await startupLock.withLock { startupConnection.withLock { $0.take() } }
        try? await startup?.close()
    }

    /// Runs `body` on a pooled connection, or on the start-up connection while the pool does not run.
    func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        guard startupConnection.withLock({ $0 != nil }) else { return try await client.withConnection(body) }
        return try await startupLock.withLock {
            guard let connection = startupConnection.withLock({ $0 }) else {
                return try await client.withConnection(body)
            }
            return try await body(connection)
        }
    }

    /// How many statements concurrent steps shared so far (reads and commits).
    var sharedStatements: Int { batches.statements.load(ordering: .relaxed) }

    /// Whether steps share statements now (the loops run and the pool took over).
    var batching: Bool {
        batches.running.load(ordering: .sequentiallyConsistent) && startupConnection.withLock { $0 == nil }
    }

    func transaction<Result: Sendable>(_ body: @escaping @Sendable (any StateTransaction) async throws -> Result)
        async throws
        -> Result
    {
        // The deadline is each attempt's: PostgreSQL that answers with conflicts (many testers'
        // namespaces at once) is not an outage, and the step is run again until it commits.
        if batching {
            attempts: for _ in 0..<Self.optimisticAttempts {
                // The shared statements keep the deadline themselves (no timer per step).
                switch try await withDeadline(timed: false, { try await self.runOptimistic(body) }) {
                case .committed(let result): return result
                case .conflict: continue
                case .needsWriteLock: break attempts
                }
            }
        }
        var attempt = 0
        while true {
            attempt += 1
            let last = attempt >= 50
            let outcome = try await withDeadline { () -> StepAttempt<Result> in
                do {
                    return .committed(try await self.runLocked(body))
                } catch  where PostgresErrorText.isConflict(error) && !last {
                    return .conflict
                }
            }
            guard case .committed(let result) = outcome else {
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(2 * min(attempt, 20)))))
                continue
            }
            return result
        }
    }

    /// Runs `body` once optimistically (see `OptimisticTransaction`) and commits what it wrote with
    /// other steps'. A refusal the step throws stands only if what it read is still current.
    private func runOptimistic<Result: Sendable>(
        _ body: @escaping @Sendable (any StateTransaction) async throws -> Result
    ) async throws -> StepAttempt<Result> {
        let transaction = OptimisticTransaction(
            batches: batches, lister: PostgresLister(client: { self.client }, timeout: stepTimeout, logger: logger))
        let result: Result
        do {
            result = try await body(transaction)
        } catch is NeedsWriteLock {
            return .needsWriteLock
        } catch  where error is StoreUnavailable || error is CancellationError || error is PSQLError {
            throw error
        } catch {
            if transaction.needsLock { return .needsWriteLock }
            let read = PostgresBatches.Step(reads: transaction.step.reads, writes: [])
            guard try await commit(read, of: transaction) else { return .conflict }
            throw error
        }
        // (A step whose one read was a list has nothing to check: `commit` answers at once.)
        if transaction.needsLock { return .needsWriteLock }
        guard try await commit(transaction.step, of: transaction) else { return .conflict }
        return .committed(result)
    }

    /// Commits `step` (a check of what `transaction` read, with or without its writes); whether it
    /// was written. A step that read one entry, not from a cache, and writes nothing needs no check.
    /// A refused step's reads are forgotten by the caches (it runs again on fresh ones), and so are
    /// a written step's writes (their versions moved).
    private func commit(_ step: PostgresBatches.Step, of transaction: OptimisticTransaction) async throws -> Bool {
        if step.writes.isEmpty, step.prunes.isEmpty, step.reads.count <= 1, !transaction.usedCache { return true }
        guard try await batches.commits.submit(step) else {
            batches.entries.forget(transaction.readAddresses)
            return false
        }
        if !step.writes.isEmpty { batches.entries.forget(transaction.writtenAddresses) }
        for space in transaction.prunedSpaces { batches.entries.forget(space: space) }
        return true
    }

    /// Runs `body` in a transaction of its own that holds the write lock from its first statement.
    private func runLocked<Result: Sendable>(
        _ body: @escaping @Sendable (any StateTransaction) async throws -> Result
    )
        async throws -> Result
    {
        try await withConnection { connection in
            try await PostgresWriteLock.run(on: connection, logger: self.logger) {
                try await body(PostgresTransaction(connection: connection, logger: self.logger))
            }
        }
    }

    func control(in space: String, ifChangedFrom known: Int64?) async throws -> (revision: Int64, value: ControlState?)
    {
        if batching {
            return try await withDeadline(timed: false) {
                let stored = try await self.batches.reads.submit(
                    PostgresBatches.Read(space: space, key: ControlState.key, knownRevision: known))
                guard stored.version != .absent else { throw ControlMissing() }
                let value = try stored.text.map {
                    try StoreCoding.decoder.decode(ControlState.self, from: Data($0.utf8))
                }
                if let value, let text = stored.text {
                    self.batches.entries.keep(
                        EntryAddress(space: space, key: ControlState.key),
                        EntryCache.Entry(version: stored.version, value: value), text: text)
                }
                return (stored.version.rev, value)
            }
        }
        return try await withDeadline {
            try await self.withConnection { connection in
                let rows = try await connection.query(
                    """
                    SELECT rev, CASE WHEN rev = \(known ?? -1) THEN NULL ELSE value END FROM apple_id_mock_entries
                    WHERE space = \(space) AND key = \(ControlState.key)
                    """, logger: self.logger)
                for try await (revision, text) in rows.decode((Int64, String?).self) {
                    let value = try text.map { try StoreCoding.decoder.decode(ControlState.self, from: Data($0.utf8)) }
                    return (revision, value)
                }
                throw ControlMissing()
            }
        }
    }

    /// Runs `body`, failing with `StoreUnavailable` when the database does not answer in time or at
    /// all (a server error from a reachable database is reported as it is). `timed: false` for work
    /// that keeps its own deadline (the shared statements').
    func withDeadline<T: Sendable>(timed: Bool = true, _ body: @escaping @Sendable () async throws -> T)
        async throws -> T
    {
        if let cause = outage.withLock({ $0 }) { throw StoreUnavailable(cause: cause) }
        do {
            return timed ? try await withDeadlineUnchecked(body) : try await Self.translatingFailures(body)
        } catch let failure as StoreUnavailable where failure.isOutage {
            let wasUp = outage.withLock { current in
                defer { current = failure.cause }
                return current == nil
            }
            if wasUp {
                logger.error(
                    "PostgreSQL is unavailable",
                    metadata: ["idp.store": .string(description), "idp.cause": .string(failure.cause)])
            }
            throw failure
        }
    }

    private func withDeadlineUnchecked<T: Sendable>(
        seconds: Int? = nil, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await Self.translatingFailures {
            try await PostgresDeadline.racing(seconds.map { Duration.seconds($0) } ?? self.stepTimeout, body)
        }
    }

    /// Runs `body`, telling an unreachable database (an outage) from a statement it refused.
    private static func translatingFailures<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StoreUnavailable {
            throw error
        } catch let error as PSQLError where !PostgresErrorText.isServerError(error) {
            throw StoreUnavailable(
                cause: "PostgreSQL is unreachable: \(PostgresErrorText.describe(error))", isOutage: true)
        } catch let error as PSQLError {
            throw StoreUnavailable(cause: "PostgreSQL refused a statement: \(PostgresErrorText.describe(error))")
        } catch  where String(reflecting: type(of: error)).hasSuffix("ConnectionPoolError") {
            throw StoreUnavailable(cause: "PostgreSQL is unreachable: \(error)", isOutage: true)
        }
    }
}

/// One attempt of a step: committed with its result, refused by a conflict with another step (run
/// it again), or in need of the write lock (run it again, holding it).
private enum StepAttempt<Result: Sendable>: Sendable {
    case committed(Result)
    case conflict
    case needsWriteLock
}
