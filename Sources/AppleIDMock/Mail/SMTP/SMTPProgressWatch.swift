/// How long a connection has gone without moving its transaction on (NOOP, RSET and refused
/// commands do not): the one place that notes the dialogue's progress, marks the connection's
/// slot as progressing, and tells when the connection has been still too long.
struct SMTPProgressWatch {
    /// The slots, and the connection's one.
    let slots: SMTPConnectionSlots
    let slot: Int
    /// How long the connection may go without progress.
    let patience: Duration
    private var progress: Int
    private var since: ContinuousClock.Instant

    init(
        slots: SMTPConnectionSlots, slot: Int, progress: Int, patience: Duration,
        now: ContinuousClock.Instant = .now
    ) {
        self.slots = slots
        self.slot = slot
        self.patience = patience
        self.progress = progress
        self.since = now
    }

    /// Notes the dialogue's `progress`; when it moved, the slot is marked as progressing. Returns
    /// whether it moved.
    @discardableResult
    mutating func note(_ progress: Int, now: ContinuousClock.Instant = .now) -> Bool {
        guard progress != self.progress else { return false }
        self.progress = progress
        since = now
        slots.progressed(slot, now: now)
        return true
    }

    /// Whether the connection has gone without progress for longer than `patience`.
    func isStalled(now: ContinuousClock.Instant = .now) -> Bool {
        now - since > patience
    }
}
