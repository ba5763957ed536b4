/// Why the store could not serve a request: the database is unreachable or failed. `/auth/*` answers
/// 503 in Apple's JSON shape and the control plane 503 with the cause; nothing was half-written.
public struct StoreUnavailable: Error, Sendable, CustomStringConvertible {
    /// The cause, without secrets.
    public var cause: String
    /// Whether the database could not be reached at all (rather than refusing one statement).
    var isOutage = false

    public init(cause: String) {
        self.cause = cause
    }

    init(cause: String, isOutage: Bool) {
        self.cause = cause
        self.isOutage = isOutage
    }

    public var description: String { "the state store is unavailable: \(cause)" }
}

/// Why a store refused to open: a bad location, an unreachable database, an unknown schema version.
/// The CLI prints it as one line and exits non-zero.
public struct StoreOpeningError: Error, Sendable, CustomStringConvertible {
    /// The store's location, password masked.
    public var location: String
    /// What went wrong.
    public var cause: String

    public init(location: String, cause: String) {
        self.location = location
        self.cause = cause
    }

    public var description: String { "cannot open state store \(location): \(cause)" }
}
