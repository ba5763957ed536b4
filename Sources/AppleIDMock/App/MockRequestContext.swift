import Hummingbird
import NIOCore

/// The context of every request: Hummingbird's, plus the connection, so a fault rule can drop it
/// without an answer.
public struct MockRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The request's connection.
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
