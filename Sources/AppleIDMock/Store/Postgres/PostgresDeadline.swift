/// A deadline for work on PostgreSQL that does not keep one itself (the shared statements do).
enum PostgresDeadline {
    /// Runs `body`, failing as an outage if it has not answered after `timeout`.
    static func racing<T: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> T)
        async throws -> T
    {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw StoreUnavailable(cause: "PostgreSQL did not answer within \(timeout)", isOutage: true)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }
}
