import Foundation
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle

/// The state in PostgreSQL, shared by any number of replicas. Each step is a `SERIALIZABLE`
/// transaction, run again when it conflicts with another replica's, so a code is redeemed exactly
/// once however many replicas race for it. A step that cannot reach the database within a few
/// seconds fails with `StoreUnavailable`; the pool reconnects by itself when the database is back.
final class PostgresStore: StateStore, Service {
    let description: String
    private let client: PostgresClient
    private let logger: Logger
    /// How long a step may wait for the database before the request is answered with a 503.
    private let stepTimeout: Duration = .seconds(5)

    private init(client: PostgresClient, description: String, logger: Logger) {
        self.client = client
        self.description = description
        self.logger = logger
    }

    /// Connects once to check the database and create the tables, then starts the pool.
    static func open(_ location: StoreLocation.PostgresLocation, description: String, logger: Logger)
        async throws(StoreOpeningError) -> PostgresStore
    {
        let configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable)
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
            do {
                try await PostgresSchema.prepare(connection, location: description, logger: logger)
                try await connection.close()
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
            client: PostgresClient(configuration: clientConfiguration, backgroundLogger: logger),
            description: description, logger: logger)
    }

    /// Runs the connection pool until the server shuts down.
    func run() async throws {
        await cancelWhenGracefulShutdown { await self.client.run() }
    }

    /// Nothing to release: the pool opens connections only while it runs.
    func shutdownUnstarted() async {}

    func transaction<Result: Sendable>(_ body: @escaping @Sendable (any StateTransaction) async throws -> Result) async throws
        -> Result
    {
        try await withDeadline {
            var attempt = 0
            while true {
                attempt += 1
                do {
                    return try await self.runSerializable(body)
                } catch where PostgresErrorText.isConflict(error) && attempt < 50 {
                    try await Task.sleep(for: .milliseconds(Int.random(in: 1...(2 * min(attempt, 20)))))
                }
            }
        }
    }

    private func runSerializable<Result: Sendable>(_ body: @escaping @Sendable (any StateTransaction) async throws -> Result)
        async throws -> Result
    {
        try await client.withConnection { connection in
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

    func control(ifChangedFrom known: Int64?) async throws -> (revision: Int64, value: ControlState?) {
        try await withDeadline {
            let rows = try await self.client.query(
                """
                SELECT rev, CASE WHEN rev = \(known ?? -1) THEN NULL ELSE value END FROM apple_id_mock_entries
                WHERE space = \(Spaces.control.name) AND key = \(ControlState.key)
                """, logger: self.logger)
            for try await (revision, text) in rows.decode((Int64, String?).self) {
                let value = try text.map { try StoreCoding.decoder.decode(ControlState.self, from: Data($0.utf8)) }
                return (revision, value)
            }
            throw StoreUnavailable(cause: "the control record is missing")
        }
    }

    func claimDue<Value>(
        _ space: StoreSpace<Value>, now: Date, leaseUntil: Date, limit: Int, mark: @escaping @Sendable (inout Value) -> Void
    ) async throws -> [(key: String, value: Value)] {
        try await withDeadline {
            try await self.client.withConnection { connection in
                // READ COMMITTED with SKIP LOCKED: replicas take disjoint rows without conflicts.
                try await connection.query("BEGIN", logger: self.logger)
                do {
                    let rows = try await connection.query(
                        """
                        SELECT key, value FROM apple_id_mock_entries
                        WHERE space = \(space.name) AND due_at <= \(now.timeIntervalSince1970)
                        ORDER BY due_at LIMIT \(limit) FOR UPDATE SKIP LOCKED
                        """, logger: self.logger)
                    var claimed: [(key: String, value: Value)] = []
                    for try await (key, text) in rows.decode((String, String).self) {
                        var value = try StoreCoding.decoder.decode(Value.self, from: Data(text.utf8))
                        mark(&value)
                        claimed.append((key, value))
                    }
                    for (key, value) in claimed {
                        let text = String(decoding: try StoreCoding.encoder.encode(value), as: UTF8.self)
                        try await connection.query(
                            """
                            UPDATE apple_id_mock_entries SET value = \(text), due_at = \(leaseUntil.timeIntervalSince1970),
                                rev = rev + 1
                            WHERE space = \(space.name) AND key = \(key)
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
            let rows = try await self.client.query(
                """
                WITH swept AS (DELETE FROM apple_id_mock_entries WHERE expires_at < \(now.timeIntervalSince1970)
                RETURNING 1) SELECT count(*) FROM swept
                """, logger: self.logger)
            for try await count in rows.decode(Int64.self) { return Int(count) }
            return 0
        }
    }

    /// Runs `body`, failing with `StoreUnavailable` when the database does not answer in time or at
    /// all (a server error from a reachable database is reported as it is).
    private func withDeadline<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let timeout = stepTimeout
        do {
            return try await withThrowingTaskGroup(of: T.self) { group in
                group.addTask { try await body() }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw StoreUnavailable(cause: "PostgreSQL did not answer within \(timeout)")
                }
                defer { group.cancelAll() }
                guard let first = try await group.next() else { throw CancellationError() }
                return first
            }
        } catch let error as StoreUnavailable {
            throw error
        } catch let error as PSQLError where !PostgresErrorText.isServerError(error) {
            throw StoreUnavailable(cause: "PostgreSQL is unreachable: \(PostgresErrorText.describe(error))")
        } catch let error as PSQLError {
            throw StoreUnavailable(cause: "PostgreSQL refused a statement: \(PostgresErrorText.describe(error))")
        } catch where String(reflecting: type(of: error)).hasSuffix("ConnectionPoolError") {
            throw StoreUnavailable(cause: "PostgreSQL is unreachable: \(error)")
        }
    }
}
