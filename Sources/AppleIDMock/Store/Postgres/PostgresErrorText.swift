import PostgresNIO

/// Short, secret-free causes for PostgreSQL failures (postgres-nio hides details from `description`).
enum PostgresErrorText {
    /// The cause of `error` in a few words: the server's message, or the connection error.
    static func describe(_ error: any Error) -> String {
        if let error = error as? StoreUnavailable { return error.cause }
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return message + state
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }

    /// The SQLSTATE of a server error, if it is one.
    static func sqlState(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// Whether the step should simply run again: a serialization failure, a deadlock, or two
    /// replicas inserting the same new key at once.
    static func isConflict(_ error: any Error) -> Bool {
        ["40001", "40P01", "23505"].contains(sqlState(error) ?? "")
    }

    /// Whether the database answered at all (a server error other than a conflict means a bug or a
    /// schema problem; anything else means it is unreachable).
    static func isServerError(_ error: any Error) -> Bool {
        sqlState(error) != nil
    }
}
