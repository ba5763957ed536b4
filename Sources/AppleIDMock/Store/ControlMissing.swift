/// The control record a store was asked for is not there: the namespace it belongs to was deleted
/// (here, on another replica, or by the idle sweep). Thrown by `StateStore.control(in:ifChangedFrom:)`;
/// `MockState` tells a deleted namespace (`NamespaceGone`) from a default namespace without its
/// record (`StoreUnavailable`).
struct ControlMissing: Error, Sendable, CustomStringConvertible {
    var description: String { "the control record is missing" }
}
