/// Durations as the journal and the outbox write them.
extension Duration {
    /// The whole milliseconds.
    var wholeMilliseconds: Int {
        Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000)
    }
}
