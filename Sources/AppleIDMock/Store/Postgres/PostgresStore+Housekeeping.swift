import Logging
import PostgresNIO

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// PostgreSQL's housekeeping, spanning every namespace: claiming due notifications under a lease
/// (rows taken with `SKIP LOCKED`, so replicas take disjoint ones) and sweeping expired entries in
/// bounded steps. Each first asks, without the write lock, whether there is anything to do.
extension PostgresStore {
    func claimDue<Value>(
        _ space: StoreSpace<Value>, now: Date, leaseUntil: Date, limit: Int,
        mark: @escaping @Sendable (inout Value) -> Void
    ) async throws -> [(space: String, key: String, value: Value)] {
        try await withDeadline {
            try await self.withConnection { connection in
                // Polled 20 times a second by each replica: the write lock only when something is due.
                guard try await Self.anyDue(space.name, now: now, on: connection, logger: self.logger) else {
                    return []
                }
                // READ COMMITTED with SKIP LOCKED: replicas take disjoint rows without conflicts.
                return try await PostgresWriteLock.run(on: connection, logger: self.logger) {
                    let rows = try await connection.query(
                        """
                        SELECT space, key, value FROM apple_id_mock_entries
                        WHERE (space = \(space.name) OR space LIKE \(StoredSpaceName.copiesPattern(of: space.name)))
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
                    return claimed
                }
            }
        }
    }

    /// Whether an entry of `space`, or of a namespace's copy of it, is due at `now` (read without
    /// the lock: one that falls due meanwhile is taken at the next poll).
    private static func anyDue(_ space: String, now: Date, on connection: PostgresConnection, logger: Logger)
        async throws -> Bool
    {
        let rows = try await connection.query(
            """
            SELECT EXISTS (SELECT 1 FROM apple_id_mock_entries
                WHERE (space = \(space) OR space LIKE \(StoredSpaceName.copiesPattern(of: space)))
                    AND due_at <= \(now.timeIntervalSince1970))
            """, logger: logger)
        var due = false
        for try await found in rows.decode(Bool.self) { due = found }
        return due
    }

    /// How many entries one sweep step deletes at most: each step holds the write lock for a few
    /// milliseconds, so a burst of expiries (a clock jump, a load test's codes) does not hold every
    /// replica's steps for as long as it takes to delete all of it.
    static let sweepBatch = 4096

    func sweep(expiredBefore now: Date) async throws -> Int {
        try await sweepInSteps(of: Self.sweepBatch) { try await sweepBatch(expiredBefore: now) }
    }

    /// Deletes up to `sweepBatch` of the entries that expired first. Both statements walk the
    /// expiry index from its start whatever the statistics say (`min`, `ORDER BY … LIMIT`), and the
    /// delete takes the rows found by their place (`ctid`: no writer moves them, all hold the
    /// lock): a condition on `expires_at` alone, or a join back to the table, is planned as a scan
    /// of the whole table when the statistics are old, as a fast-growing table's always are.
    private func sweepBatch(expiredBefore now: Date) async throws -> Int {
        try await withDeadline {
            try await self.withConnection { connection in
                // The write lock only when something expired (an entry that expires meanwhile goes next time).
                var expired = false
                for try await found in try await connection.query(
                    """
                    SELECT coalesce(min(expires_at) < \(now.timeIntervalSince1970), false) FROM apple_id_mock_entries
                    """, logger: self.logger
                ).decode(Bool.self) {
                    expired = found
                }
                guard expired else { return 0 }
                return try await PostgresWriteLock.run(on: connection, logger: self.logger) {
                    let rows = try await connection.query(
                        """
                        WITH swept AS (DELETE FROM apple_id_mock_entries WHERE ctid = ANY(ARRAY(
                            SELECT ctid FROM apple_id_mock_entries WHERE expires_at < \(now.timeIntervalSince1970)
                            ORDER BY expires_at LIMIT \(Self.sweepBatch))) RETURNING 1)
                        SELECT count(*) FROM swept
                        """, logger: self.logger)
                    var swept = 0
                    for try await count in rows.decode(Int64.self) { swept = Int(count) }
                    return swept
                }
            }
        }
    }
}
