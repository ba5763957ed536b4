#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The state a request works with, read once when it starts: the world in force (the scenario with
/// its settings patch and transfers), its client-secret verifier, the control record, and the
/// instant on the mock's clock.
final class ActiveScenario: Sendable {
    /// The resolved world.
    let world: World
    /// Checks client secrets against the world's developer keys.
    let secrets: ClientSecretVerifier
    /// The signing key and the roster behind the JWKS.
    let keys: ResolvedKeys
    /// The control record it was built from.
    let control: ControlState
    /// The store revision of that record.
    let revision: Int64
    /// The scenario's scheduled events in schedule order (start-up ones first).
    let scheduledEvents: [ScheduledEvent]
    /// The scenario's scheduled transfers in schedule order.
    let scheduledTransfers: [ScheduledTransfer]
    /// Where an uploaded scenario came from (`nil`: the scenarios folder).
    let upload: UploadedScenario?
    /// The base clock.
    private let clock: MockClock
    /// The confirmation of the `/auth/*` call answered on this state without reading it first
    /// (`MockState.current(confirming:)`): the call's steps check and confirm it. `nil` for a state
    /// read from the store, and for every request on a store that reads its control record cheaply.
    let confirmation: ControlConfirmation?

    init(
        world: World, secrets: ClientSecretVerifier, keys: ResolvedKeys, control: ControlState, revision: Int64,
        clock: MockClock, upload: UploadedScenario?
    ) {
        self.keys = keys
        self.clock = clock
        self.world = world
        self.secrets = secrets
        self.control = control
        self.revision = revision
        self.upload = upload
        confirmation = nil
        scheduledEvents = Self.inScheduleOrder(world.scenario.events, at: \.at)
        scheduledTransfers = Self.inScheduleOrder(world.scenario.transfers, at: \.at)
    }

    /// `other`, answering one call under `confirmation`.
    private init(_ other: ActiveScenario, confirmation: ControlConfirmation) {
        world = other.world
        secrets = other.secrets
        keys = other.keys
        control = other.control
        revision = other.revision
        scheduledEvents = other.scheduledEvents
        scheduledTransfers = other.scheduledTransfers
        upload = other.upload
        clock = other.clock
        self.confirmation = confirmation
    }

    /// The same state, for one call answered on it before it was read again (`ControlConfirmation`).
    func confirming(_ confirmation: ControlConfirmation) -> ActiveScenario {
        ActiveScenario(self, confirmation: confirmation)
    }

    /// The same state, read again at store revision `revision` (another namespace's control record
    /// moved it; this one's is unchanged).
    func revised(_ revision: Int64) -> ActiveScenario {
        ActiveScenario(
            world: world, secrets: secrets, keys: keys, control: control, revision: revision, clock: clock,
            upload: upload)
    }

    /// The instant on the mock's clock: the base clock plus the control plane's offset, or the
    /// instant it was frozen at.
    var now: Date { control.now(base: clock.now()) }

    /// The scheduled events still to come.
    var upcomingEvents: ArraySlice<ScheduledEvent> { scheduledEvents.dropFirst(control.firedEvents) }

    /// Whether a scheduled event or transfer is due at `now`.
    func hasDueWork(at now: Date) -> Bool {
        let event = scheduledEvents.dropFirst(control.firedEvents).first
        let transfer = scheduledTransfers.dropFirst(control.firedTransfers).first
        return (event.map { ($0.at ?? .distantPast) <= now } ?? false)
            || (transfer.map { ($0.at ?? .distantPast) <= now } ?? false)
    }

    /// Sorted by time, start-up items (no time) first, ties in file order.
    private static func inScheduleOrder<T>(_ items: [T], at: KeyPath<T, Date?>) -> [T] {
        items.enumerated().sorted { lhs, rhs in
            let (left, right) = (lhs.element[keyPath: at] ?? .distantPast, rhs.element[keyPath: at] ?? .distantPast)
            return left == right ? lhs.offset < rhs.offset : left < right
        }.map(\.element)
    }
}
