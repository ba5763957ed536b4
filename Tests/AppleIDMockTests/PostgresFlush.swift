import Foundation
import Logging
import PostgresNIO

@testable import AppleIDMock

extension TestPostgres {
    /// Makes every commit so far durable on the throwaway cluster, which runs with
    /// `synchronous_commit = off` (its WAL writer flushes every 200 ms): one transaction that commits
    /// with `synchronous_commit = on` waits until the WAL is flushed up to its own commit record, so
    /// past every earlier commit. Replaces a pause "for the WAL writer" with the event itself.
    static func flushCommits(url: String) async throws {
        guard case .postgres(let location) = try StoreLocation(parsing: url) else {
            throw StoreOpeningError(location: url, cause: "not a postgres URL")
        }
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: location.host, port: location.port, username: location.user, password: location.password,
                database: location.database, tls: .disable), id: 1, logger: quietLogger)
        do {
            try await connection.query("SET synchronous_commit TO on", logger: quietLogger)
            // A commit is flushed synchronously only when its transaction wrote WAL itself: an id
            // alone (txid_current()) commits asynchronously, so the flush waited on the WAL writer's
            // next round and a run alone, faster, could stop the cluster before it. A transactional
            // logical message writes WAL without touching the mock's tables; its flush covers every
            // commit before it.
            try await connection.query(
                "SELECT pg_logical_emit_message(true, 'apple-id-mock-test', 'flush')", logger: quietLogger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }
}
