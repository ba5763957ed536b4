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

/// The state in PostgreSQL, shared by any number of replicas. Each step is a `SERIALIZABLE`
/// transaction, run again when it conflicts with another replica's, so a code is redeemed exactly
/// once however many replicas race for it. A step that cannot reach the database within a few
/// seconds fails with `StoreUnavailable`; after that, steps fail at once (no request waits) while a
/// probe connects twice a second, and when the database answers again a fresh pool takes over.
final class PostgresStore: StateStore, Service {
    let description: String
    private let configuration: PostgresClient.Configuration
    /// One connection's configuration (the one `open` checked), for the recovery probe.
    private let probeConfiguration: PostgresConnection.Configuration
    /// The pool in use (replaced after an outage, so no reconnection backoff delays recovery).
    private let pool: Mutex<PostgresClient>
    private let logger: Logger
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

    private init(
        configuration: PostgresClient.Configuration, probeConfiguration: PostgresConnection.Configuration,
        startupConnection: PostgresConnection, description: String, stepTimeout: Duration, logger: Logger
    ) {
        self.configuration = configuration
        self.stepTimeout = stepTimeout
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

    /// Runs the connection pool until the server shuts down, and closes the start-up connection.
    /// After an outage, as soon as a probe connects again, a fresh pool replaces the old one.
    func run() async throws {
        await cancelWhenGracefulShutdown {
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
    private func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        guard startupConnection.withLock({ $0 != nil }) else { return try await client.withConnection(body) }
        return try await startupLock.withLock {
            guard let connection = startupConnection.withLock({ $0 }) else {
                return try await client.withConnection(body)
            }
            return try await body(connection)
        }
    }

    func transaction<Result: Sendable>(_ body: @escaping @Sendable (any StateTransaction) async throws -> Result)
        async throws
        -> Result
    {
        // The deadline is each attempt's: PostgreSQL that answers with conflicts (many testers'
        // namespaces at once) is not an outage, and the step is run again until it commits.
        var attempt = 0
        while true {
            attempt += 1
            let last = attempt >= 50
            let outcome = try await withDeadline { () -> SerializableAttempt<Result> in
                do {
                    return .committed(try await self.runSerializable(body))
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

    private func runSerializable<Result: Sendable>(
        _ body: @escaping @Sendable (any StateTransaction) async throws -> Result
    )
        async throws -> Result
    {
        try await withConnection { connection in
            try await connection.query("BEGIN ISOLATION LEVEL SERIALIZABLE", logger: self.logger)
            do {
                let result = try await body(PostgresTransaction(connection: connection, logger: self.logger))
                try await connection.query("COMMIT", logger: self.logger)
                return result
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: self.logger)
                throw error
            }
        }
    }

    func control(in space: String, ifChangedFrom known: Int64?) async throws -> (revision: Int64, value: ControlState?)
    {
        try await withDeadline {
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
                throw StoreUnavailable(cause: "the control record is missing")
            }
        }
    }

    /// Per topic: how many rows its spaces hold, the newest row's sequence number and the sum of
    /// the rows' revisions (an insert, an update and a delete each move one of them), in one query.
    func changeMarks() async throws -> [StoreWatch.Topic: String]? {
        try await withDeadline {
            try await self.withConnection { connection in
                let spaces = StoreWatch.Topic.allCases.flatMap(\.spaces)
                // A namespace's copies too (`team-a/journal`).
                let copies = spaces.map { "%/" + $0 }
                let rows = try await connection.query(
                    """
                    SELECT space, count(*), coalesce(max(seq), 0), coalesce(sum(rev), 0)::BIGINT
                    FROM apple_id_mock_entries WHERE space = ANY(\(spaces)) OR space LIKE ANY(\(copies)) GROUP BY space
                    """, logger: self.logger)
                var marks: [StoreWatch.Topic: String] = [:]
                for try await (space, count, newest, revisions) in rows.decode((String, Int64, Int64, Int64).self) {
                    if let topic = StoreWatch.Topic.of(space: space) {
                        marks[topic, default: ""] += "\(space):\(count):\(newest):\(revisions);"
                    }
                }
                return marks
            }
        }
    }

    func entryCounts(_ spaces: [String]) async throws -> [String: Int] {
        try await withDeadline {
            try await self.withConnection { connection in
                let rows = try await connection.query(
                    """
                    SELECT space, count(*) FROM apple_id_mock_entries WHERE space = ANY(\(spaces)) GROUP BY space
                    """, logger: self.logger)
                var counts = Dictionary(uniqueKeysWithValues: spaces.map { ($0, 0) })
                for try await (space, count) in rows.decode((String, Int64).self) { counts[space] = Int(count) }
                return counts
            }
        }
    }

    func claimDue<Value>(
        _ space: StoreSpace<Value>, now: Date, leaseUntil: Date, limit: Int,
        mark: @escaping @Sendable (inout Value) -> Void
    ) async throws -> [(space: String, key: String, value: Value)] {
        try await withDeadline {
            try await self.withConnection { connection in
                // READ COMMITTED with SKIP LOCKED: replicas take disjoint rows without conflicts.
                try await connection.query("BEGIN", logger: self.logger)
                do {
                    let rows = try await connection.query(
                        """
                        SELECT space, key, value FROM apple_id_mock_entries
                        WHERE (space = \(space.name) OR space LIKE \("%/" + space.name))
                            AND due_at <= \(now.timeIntervalSince1970)
                        ORDER BY due_at LIMIT \(limit) FOR UPDATE SKIP LOCKED
                        """, logger: self.logger)
                    var claimed: [(space: String, key: String, value: Value)] = []
                    for try await (stored, key, text) in rows.decode((String, String, String).self) {
                        var value = try StoreCoding.decoder.decode(Value.self, from: Data(text.utf8))
                        mark(&value)
                        claimed.append((stored, key, value))
                    }
                    for (stored, key, value) in claimed {
                        let text = String(decoding: try StoreCoding.encoder.encode(value), as: UTF8.self)
                        try await connection.query(
                            """
                            UPDATE apple_id_mock_entries SET value = \(text), due_at = \(leaseUntil.timeIntervalSince1970),
                                rev = rev + 1
                            WHERE space = \(stored) AND key = \(key)
                            """, logger: self.logger)
                    }
                    try await connection.query("COMMIT", logger: self.logger)
                    return claimed
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: self.logger)
                    throw error
                }
            }
        }
    }

    func sweep(expiredBefore now: Date) async throws -> Int {
        try await withDeadline {
            try await self.withConnection { connection in
                let rows = try await connection.query(
                    """
                    WITH swept AS (DELETE FROM apple_id_mock_entries WHERE expires_at < \(now.timeIntervalSince1970)
                    RETURNING 1) SELECT count(*) FROM swept
                    """, logger: self.logger)
                for try await count in rows.decode(Int64.self) { return Int(count) }
                return 0
            }
        }
    }

    /// Runs `body`, failing with `StoreUnavailable` when the database does not answer in time or at
    /// all (a server error from a reachable database is reported as it is).
    private func withDeadline<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        if let cause = outage.withLock({ $0 }) { throw StoreUnavailable(cause: cause) }
        do {
            return try await withDeadlineUnchecked(body)
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
        let timeout = seconds.map { Duration.seconds($0) } ?? stepTimeout
        do {
            return try await withThrowingTaskGroup(of: T.self) { group in
                group.addTask { try await body() }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw StoreUnavailable(cause: "PostgreSQL did not answer within \(timeout)", isOutage: true)
                }
                defer { group.cancelAll() }
                guard let first = try await group.next() else { throw CancellationError() }
                return first
            }
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

/// One attempt of a serializable step: committed with its result, or refused by a conflict with
/// another step (run it again).
private enum SerializableAttempt<Result: Sendable>: Sendable {
    case committed(Result)
    case conflict
}
