#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the control plane steers, kept as one record in the store: the scenario in force, the
/// settings patched over it, the clock (offset, or frozen instant), the transfers so far, how far the
/// scenario's schedule has run, the fault rules, the signing keys, and the epoch that every reset or
/// switch moves on. Every request reads it, so a change made through one replica is in force on all
/// of them.
struct ControlState: Codable, Sendable, Equatable {
    /// The record's key in `Spaces.control`.
    static let key = "current"

    /// The active scenario's name.
    var scenario: String
    /// Settings changed with `PATCH /__admin/settings`, merged, applied over the scenario's own.
    var settingsPatch: [String: JSONValue] = [:]
    /// How far the mock's clock is ahead of the base clock.
    var clockOffsetSeconds: Double = 0
    /// The instant the clock stands still at, when frozen.
    var frozenAt: Date?
    /// App group transfers so far, in order.
    var transfers: [AppTransfer] = []
    /// How many of the scenario's scheduled events (in schedule order) have fired.
    var firedEvents = 0
    /// How many of the scenario's scheduled transfers (in schedule order) have fired.
    var firedTransfers = 0
    /// Moves on with every reset and switch; work from an earlier epoch is void.
    var epoch = 0
    /// The fault rules in force, in the order they were added.
    var faults: [FaultRule] = []
    /// The number the next fault rule's id gets.
    var nextFaultNumber = 1
    /// The signing keys once the control plane changed them (`nil`: the bundled keys, all published).
    var keys: KeyRoster?
    /// Journal entries with an id before this were cleared (a replica may still hold some unwritten).
    var journalClearedBefore: String?
    /// Whether the namespace's derived identifiers are its own (`nil`: the default namespace's).
    var identities: NamespaceIdentities?

    init(scenario: String) {
        self.scenario = scenario
    }

    /// The same control after a reset: the scenario re-armed and the fault rules cleared; settings,
    /// clock and keys kept.
    func reset() -> ControlState {
        var next = self
        next.transfers = []
        next.firedEvents = 0
        next.firedTransfers = 0
        next.faults = []
        next.epoch += 1
        return next
    }

    /// The control after switching to `name`: its own settings; clock and keys kept.
    func switched(to name: String) -> ControlState {
        var next = reset()
        next.scenario = name
        next.settingsPatch = [:]
        return next
    }

    /// The instant on the mock's clock, given the base clock's `base`.
    func now(base: Date) -> Date {
        frozenAt ?? base.addingTimeInterval(clockOffsetSeconds)
    }

    /// The stored names of the fields.
    private enum CodingKeys: String, CodingKey {
        case scenario, settingsPatch, clockOffsetSeconds, frozenAt, transfers, firedEvents, firedTransfers, epoch
        case faults, nextFaultNumber, keys, journalClearedBefore, identities
    }

    /// Reads a record written by this or an earlier version (fields added later may be absent).
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        scenario = try container.decode(String.self, forKey: .scenario)
        settingsPatch = try container.decodeIfPresent([String: JSONValue].self, forKey: .settingsPatch) ?? [:]
        clockOffsetSeconds = try container.decodeIfPresent(Double.self, forKey: .clockOffsetSeconds) ?? 0
        frozenAt = try container.decodeIfPresent(Date.self, forKey: .frozenAt)
        transfers = try container.decodeIfPresent([AppTransfer].self, forKey: .transfers) ?? []
        firedEvents = try container.decodeIfPresent(Int.self, forKey: .firedEvents) ?? 0
        firedTransfers = try container.decodeIfPresent(Int.self, forKey: .firedTransfers) ?? 0
        epoch = try container.decodeIfPresent(Int.self, forKey: .epoch) ?? 0
        faults = try container.decodeIfPresent([FaultRule].self, forKey: .faults) ?? []
        nextFaultNumber = try container.decodeIfPresent(Int.self, forKey: .nextFaultNumber) ?? 1
        keys = try container.decodeIfPresent(KeyRoster.self, forKey: .keys)
        journalClearedBefore = try container.decodeIfPresent(String.self, forKey: .journalClearedBefore)
        identities = try container.decodeIfPresent(NamespaceIdentities.self, forKey: .identities)
    }
}
