/// Why a lifecycle event or native call cannot be carried out.
package struct LifecycleRefusal: Error, Sendable, Equatable {
    /// Whether something named does not exist, or exists but the event does not apply to it.
    enum Kind: Sendable, Equatable {
        case notFound
        case notApplicable
    }

    var kind: Kind
    package var message: String
}
