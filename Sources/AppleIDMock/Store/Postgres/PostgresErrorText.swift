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
        if let underlying = error.underlying {
            return underlying is PSQLError ? describe(underlying) : connectionCause(String(reflecting: underlying))
        }
        return "\(error.code)"
    }

    /// The SQLSTATE of a server error, if it is one.
    static func sqlState(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// Whether the step should simply run again: a serialization failure, a deadlock, two
    /// replicas inserting the same new key at once, or a wait for the write lock that timed out.
    static func isConflict(_ error: any Error) -> Bool {
        ["40001", "40P01", "23505", "55P03"].contains(sqlState(error) ?? "")
    }

    /// Whether the database answered a statement (a server error other than a conflict means a bug
    /// or a schema problem). Connection failures, and the server shutting down or not accepting
    /// connections yet (SQLSTATE 57P01-57P03, class 08), mean it is unreachable.
    static func isServerError(_ error: any Error) -> Bool {
        guard let state = sqlState(error) else { return false }
        return !state.hasPrefix("08") && !["57P01", "57P02", "57P03"].contains(state)
    }

    /// A connection failure in a few words (NIO's text nests the cause deep inside).
    private static func connectionCause(_ text: String) -> String {
        let known = [
            ("Connection refused", "connection refused: nothing listens at that host and port"),
            ("timed out", "connection timed out"), ("connectTimeout", "connection timed out"),
            ("No address associated", "unknown host"), ("Name or service not known", "unknown host"),
            ("nodename nor servname", "unknown host"), ("lookup", "unknown host"),
        ]
        return known.first { text.contains($0.0) }?.1 ?? "cannot connect: \(text)"
    }
}
