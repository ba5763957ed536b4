import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL

/// A server child channel that handles each connection on the event loop that owns its socket.
///
/// Hummingbird runs a connection's handler as a task on the cooperative pool, so every request
/// crosses threads twice: from the loop that read it to a pool thread, and back to the loop to
/// write the answer. With as many loops as cores, those hand-offs make the loop and pool threads
/// preempt each other (and the signatures they compute). Bound here, the task prefers the
/// connection's loop; the work still spreads over the cores, since connections are spread over
/// the loops. Actor-isolated and detached work keeps its own executors.
struct LoopBoundChannel<Base: ServerChildChannel>: ServerChildChannel {
    /// The channel that speaks the protocol (HTTP/1.1, over TLS or not).
    let base: Base

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Base.Value> {
        base.setup(channel: channel, logger: logger)
    }

    func handle(value: Base.Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(loop: value.channel.eventLoop)) {
            await base.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1, over TLS when `tls` is given, with each connection handled on its own event loop.
    static func loopBoundHTTP1(configuration: HTTP1Channel.Configuration, tls: TLSConfiguration?) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            let http1 = HTTP1Channel(responder: responder, configuration: configuration)
            guard let tls else { return LoopBoundChannel(base: http1) }
            return LoopBoundChannel(base: try TLSChannel(http1, tlsConfiguration: tls))
        }
    }
}
