import PostgresNIO

/// What PostgreSQL answers outside steps about many rows at once: the change marks replicas poll
/// while someone waits (`SharedStore`), and entry counts. Each is one statement, under the step
/// deadline.
extension PostgresStore {
    /// While steps share statements: their read of the control record comes from a cache, checked at commit.
    var confirmsControlAtCommit: Bool { batching }

    /// Per topic: how many rows its spaces hold, the newest row's sequence number and the sum of
    /// the rows' revisions (an insert, an update and a delete each move one of them), in one query.
    func changeMarks() async throws -> [StoreWatch.Topic: String] {
        try await withDeadline {
            try await self.withConnection { connection in
                let spaces = StoreWatch.Topic.allCases.flatMap(\.spaces)
                // A namespace's copies too (`team-a/journal`).
                let copies = spaces.map(StoredSpaceName.copiesPattern(of:))
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
}
