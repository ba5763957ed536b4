import Hummingbird
import NIOCore

/// The context of every request: Hummingbird's, plus the connection, so a fault rule can drop it
/// without an answer, and the state in force, read once when the request starts.
public struct MockRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The request's connection.
    let channel: any Channel
    /// The state in force when the request started (set by `DueEventsMiddleware`; `nil` if the
    /// store could not be read, so the endpoint reads it again and reports the outage).
    var active: ActiveScenario?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
