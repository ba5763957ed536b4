import Synchronization

/// One `/auth/*` request answered on the control record this replica last read, without reading it
/// again first, on a store where that read is a round trip (PostgreSQL). The request's steps check
/// that the record they read is the one it was answered on, and their commit checks that it is
/// still current; a request that committed no such step reads the record at its end. Either way a
/// record changed meanwhile (through another replica, say) makes the request run again, reading
/// the record first, before anything it did was kept: it is answered as if it had read the record
/// when it started.
///
/// Nothing finds it out of sight: `AppleCallMiddleware` makes it for the call's first run and
/// reads the state with it (`MockState.current(confirming:)`); the state it answers with carries it
/// (`ActiveScenario.confirmation`, in the request context as `active`) to every step the call runs
/// on that state (`MockState.withSession`, `firingFault`).
final class ControlConfirmation: Sendable {
    private let state = Mutex<(used: ControlState?, confirmed: Bool)>((nil, false))

    init() {}

    /// The record the request is answered on without having read it, if it is still unconfirmed:
    /// `current()` answers with it (and notes it) only then, and a step then checks the record it
    /// reads against it.
    func use(_ control: ControlState) -> Bool {
        state.withLock { state in
            guard !state.confirmed else { return false }
            if state.used == nil { state.used = control }
            return true
        }
    }

    /// Whether the request rests on a record it did not read and no step confirmed yet.
    var isTentative: Bool { state.withLock { $0.used != nil && !$0.confirmed } }

    /// Notes that a step committed, or stood by its refusal or failed with the database (it may
    /// have committed): the request is not run again.
    func confirm() { state.withLock { $0.confirmed = true } }

    /// The record the request was answered on, unless a step confirmed it (`nil`: nothing to check).
    var unconfirmed: ControlState? { state.withLock { $0.confirmed ? nil : $0.used } }
}

/// A step found the control record changed since the one its request was answered on (see
/// `ControlConfirmation`); nothing was kept, and the request runs again, reading the record first.
struct ControlStale: Error, Sendable, CustomStringConvertible {
    var description: String { "the control record changed since this replica last read it" }
}
