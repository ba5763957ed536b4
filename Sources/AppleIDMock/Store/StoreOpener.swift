import Logging
import ServiceLifecycle

/// Opens the store a `StoreLocation` names, with the background services it needs (PostgreSQL's
/// connection pool) and how to close it.
enum StoreOpener {
    /// An open store.
    struct Opened: Sendable {
        var store: any StateStore
        /// Services to run beside the server (they stop with it).
        var services: [any Service]
        /// Releases what was opened when the server never started.
        var close: @Sendable () async -> Void
    }

    static func open(
        _ location: StoreLocation, postgresStepTimeout: Duration = .seconds(5), logger: Logger
    ) async throws(StoreOpeningError) -> Opened {
        switch location {
        case .memory:
            return Opened(store: MemoryStore(), services: [], close: {})
        case .sqlite(let path):
            let journal = try await SQLiteJournal.open(path: path, logger: logger)
            let loaded = try await journal.loadEntries()
            let store = MemoryStore(
                description: location.description, journal: journal, entries: loaded.entries,
                lastSeq: loaded.lastSeq)
            return Opened(store: store, services: [journal], close: { await journal.close() })
        case .postgres(let parts):
            // postgres-nio traces wire messages (codes and tokens in rows): never below `info` here.
            var driverLogger = logger
            driverLogger.logLevel = max(logger.logLevel, .info)
            let store = try await PostgresStore.open(
                parts, description: location.description, stepTimeout: postgresStepTimeout, logger: driverLogger)
            return Opened(store: store, services: [store], close: { await store.shutdownUnstarted() })
        }
    }
}
