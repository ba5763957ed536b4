/// A store other processes write too (PostgreSQL, shared by replicas), beside what every store does
/// (`StateStore`): this process learns of others' changes only by reading the store, and reading the
/// control record outside a step is a round trip. Callers ask `as? any SharedStore` once, when they
/// are built; a store this process owns alone (memory, SQLite) does not adopt it.
protocol SharedStore: StateStore {
    /// A mark per topic that changes whenever its spaces change (in any namespace), read once per
    /// interval while someone waits (`StoreWatchService`).
    func changeMarks() async throws -> [StoreWatch.Topic: String]

    /// Whether a step that read the control record commits only if it is still current, now: then
    /// `/auth/*` requests are answered on the record last read, and confirm it at their end (see
    /// `ControlConfirmation`). It may change while the store runs (PostgreSQL: once steps share
    /// statements), so it is read per request, from the store found once.
    var confirmsControlAtCommit: Bool { get }
}
