/// Why a lifecycle event or native call cannot be carried out.
public struct LifecycleRefusal: Error, Sendable, Equatable {
    /// Whether something named does not exist, or exists but the event does not apply to it.
    enum Kind: Sendable, Equatable {
        case notFound
        case notApplicable
    }

    var kind: Kind
    public var message: String
}
