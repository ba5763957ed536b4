import Foundation

/// What the control plane steers, kept as one record in the store: the scenario in force, the
/// settings patched over it, the clock offset, the transfers so far, how far the scenario's schedule
/// has run, and the epoch that every reset or switch moves on. Every request reads it, so a change
/// made through one replica is in force on all of them.
public struct ControlState: Codable, Sendable, Equatable {
    /// The record's key in `Spaces.control`.
    static let key = "current"

    /// The active scenario's name.
    public var scenario: String
    /// Settings changed with `PATCH /__admin/settings`, merged, applied over the scenario's own.
    public var settingsPatch: [String: JSONValue] = [:]
    /// How far the mock's clock is ahead of the base clock.
    public var clockOffsetSeconds: Double = 0
    /// App group transfers so far, in order.
    public var transfers: [AppTransfer] = []
    /// How many of the scenario's scheduled events (in schedule order) have fired.
    public var firedEvents = 0
    /// How many of the scenario's scheduled transfers (in schedule order) have fired.
    public var firedTransfers = 0
    /// Moves on with every reset and switch; work from an earlier epoch is void.
    public var epoch = 0

    public init(scenario: String) {
        self.scenario = scenario
    }

    /// The same control after a reset: the scenario re-armed, settings and clock kept.
    func reset() -> ControlState {
        var next = self
        next.transfers = []
        next.firedEvents = 0
        next.firedTransfers = 0
        next.epoch += 1
        return next
    }

    /// The control after switching to `name`: its own settings, clock kept.
    func switched(to name: String) -> ControlState {
        var next = reset()
        next.scenario = name
        next.settingsPatch = [:]
        return next
    }
}
