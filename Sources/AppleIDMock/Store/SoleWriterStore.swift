/// A store this process writes alone (memory, and the SQLite store's working copy), beside what every
/// store does (`StateStore`): it knows every change as it commits, so it can say without a step
/// whether any namespace's control record changed. Callers ask `as? any SoleWriterStore` once, when
/// they are built; a `SharedStore`, which other processes write too, does not adopt it.
protocol SoleWriterStore: StateStore {
    /// A number that moves on whenever any namespace's control record is written or removed, read
    /// without a step, so what is derived from every control record can be kept until it moves.
    var controlGeneration: Int64 { get }
}
