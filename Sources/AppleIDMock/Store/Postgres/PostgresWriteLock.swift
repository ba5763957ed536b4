import Logging
import PostgresNIO

/// The one way a step takes the write lock outside the commit function: a transaction of its own
/// at READ COMMITTED that holds the advisory lock (`PostgresSchema.writeLockKey`) from its first
/// statement, committed if its work succeeds and rolled back if it throws. Steps that list, prune
/// or clear, claims of due work and sweep steps all run so; the commit function takes the same lock
/// itself.
enum PostgresWriteLock {
    /// Runs `body` in a transaction on `connection` that holds the write lock.
    static func run<T>(on connection: PostgresConnection, logger: Logger, _ body: () async throws -> T)
        async throws -> T
    {
        try await connection.query("BEGIN ISOLATION LEVEL READ COMMITTED", logger: logger)
        do {
            try await take(on: connection, logger: logger)
            let result = try await body()
            try await connection.query("COMMIT", logger: logger)
            return result
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// Takes the write lock for the transaction under way on `connection`. The transaction ends if
    /// it waits for the lock longer than 2 s (the step runs again: a conflict, not an outage) or
    /// idles in it longer than 10 s (a replica stalled while holding it frees it).
    private static func take(on connection: PostgresConnection, logger: Logger) async throws {
        // A SELECT's failure comes with its rows: each is read to the end, so that a lock wait that
        // timed out is thrown here rather than found by the step's next statement.
        for try await _ in try await connection.query(
            "SELECT set_config('lock_timeout', '2s', true), set_config('idle_in_transaction_session_timeout', '10s', true)",
            logger: logger)
        {}
        for try await _ in try await connection.query(
            "SELECT pg_advisory_xact_lock(\(PostgresSchema.writeLockKey))", logger: logger)
        {}
    }
}
