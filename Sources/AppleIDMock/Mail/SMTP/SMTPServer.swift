import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle
import Synchronization

/// The relay's SMTP listener: bound when the server is built (so the start-up line can name the
/// port), serving connections as a `Service` that stops with the server. Each connection is a task
/// of the service's task group reading the framing's inputs in order: the dialogue decides, the
/// desk checks recipients and keeps messages, and replies wait for the socket to take them, so a
/// client that pipelines without reading holds no more than the channel's buffers. Copies of relayed
/// messages to `--smtp-forward` run beside the dialogue, in a task group of the connection.
struct SMTPServer: Service {
    typealias Connection = NIOAsyncChannel<SMTPInput, ByteBuffer>

    let listener: NIOAsyncChannel<Connection, Never>
    let desk: MailDesk
    let limits: SMTPLimits
    /// The TLS context for STARTTLS (`nil`: not offered).
    let tls: NIOSSLContext?
    let logger: Logger
    /// The connection slots, shared fairly (`SMTPConnectionSlots`).
    let slots: SMTPConnectionSlots

    /// The port it is bound to.
    var port: Int { listener.channel.localAddress?.port ?? 0 }

    /// Binds `host:port` (0: a free port).
    static func bind(
        host: String, port: Int, desk: MailDesk, limits: SMTPLimits = SMTPLimits(), tls: TLSConfiguration?,
        logger: Logger
    ) async throws -> SMTPServer {
        let context = try tls.map { try NIOSSLContext(configuration: $0) }
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 128)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        IdleStateHandler(readTimeout: .milliseconds(limits.idleMilliseconds)),
                        SMTPIdleHandler(hostName: limits.hostName),
                        SMTPFramingHandler(maxLineLength: limits.maxLineLength),
                    ])
                    return try Connection(
                        wrappingChannelSynchronously: channel,
                        configuration: .init(backPressureStrategy: .init(lowWatermark: 8, highWatermark: 64)))
                }
            }
        return SMTPServer(listener: listener, desk: desk, limits: limits, tls: context, logger: logger)
    }

    private init(
        listener: NIOAsyncChannel<Connection, Never>, desk: MailDesk, limits: SMTPLimits, tls: NIOSSLContext?,
        logger: Logger
    ) {
        self.listener = listener
        self.desk = desk
        self.limits = limits
        self.tls = tls
        self.logger = logger
        self.slots = SMTPConnectionSlots(
            capacity: limits.maxConnections,
            reclaimAfter: .milliseconds(min(limits.reclaimAfterMilliseconds, limits.idleMilliseconds)))
    }

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            try await listener.executeThenClose { inbound in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await connection in inbound {
                        group.addTask { await serve(connection) }
                    }
                }
            }
        }
    }

    /// Serves one connection until QUIT, a fatal error, the client leaving, too long without
    /// progress, or shutdown.
    private func serve(_ connection: Connection) async {
        let slot = admit(connection.channel)
        defer { if let slot { slots.release(slot) } }
        do {
            try await connection.executeThenClose { inbound, outbound in
                guard let slot else {
                    let full = SMTPReply(421, "4.7.0", "\(limits.hostName) Error: too many connections")
                    try await outbound.write(ByteBuffer(string: full.wire))
                    return
                }
                // The copies to `--smtp-forward` run beside the dialogue, as children of this group: the
                // client goes on (or leaves) without waiting for them, and the connection ends with them.
                let ended: (any Error)? = await withTaskGroup(of: Void.self) { forwards in
                    do {
                        try await converse(
                            inbound, outbound, channel: connection.channel, slot: slot, forwards: &forwards)
                        return nil
                    } catch {
                        return error
                    }
                }
                if Task.isCancelled {
                    // The server is shutting down: a last word, as an MTA gives, not a silent close.
                    let bye = SMTPReply(421, "4.3.2", "\(limits.hostName) Service shutting down")
                    connection.channel.writeAndFlush(ByteBuffer(string: bye.wire), promise: nil)
                } else if let ended {
                    throw ended
                }
            }
        } catch {
            logger.debug("smtp connection ended", metadata: ["error": "\(error)"])
        }
    }

    /// A slot for a new connection (`nil`: none free); a connection without progress that gives
    /// its slot up is told so and closed.
    private func admit(_ channel: any Channel) -> Int? {
        switch slots.admit(channel) {
        case .admitted(let id):
            return id
        case .admittedReclaiming(let id, let victim):
            let bye = SMTPReply(421, "4.4.2", "\(limits.hostName) Error: no progress; slot given to a new client")
            victim.writeAndFlush(ByteBuffer(string: bye.wire)).whenComplete { _ in
                victim.close(promise: nil)
            }
            return id
        case .full:
            return nil
        }
    }

    /// The dialogue on one connection, input by input, until it closes or the client leaves.
    /// Relayed messages are forwarded as children of `forwards` (at most `forwardsAtOnce` at a
    /// time); the connection's last reply waits for them, so that a client that has finished its
    /// session finds each forward's outcome in the mailbox, as when they ran in turn.
    private func converse(
        _ inbound: NIOAsyncChannelInboundStream<SMTPInput>, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        channel: any Channel, slot: Int, forwards: inout TaskGroup<Void>
    ) async throws {
        func say(_ reply: SMTPReply) async throws {
            try await outbound.write(ByteBuffer(string: reply.wire))
        }
        var dialogue = SMTPDialogue(limits: limits, tlsAvailable: tls != nil)
        var watch = SMTPProgressWatch(
            slots: slots, slot: slot, progress: dialogue.progress, patience: .milliseconds(limits.idleMilliseconds))
        var forwarding = 0
        try await say(dialogue.greeting)
        for try await input in inbound {
            let action = dialogue.receive(input)
            if !watch.note(dialogue.progress), watch.isStalled() {
                // NOOP, RSET, refused commands: no progress; the slot is not held for ever.
                try await say(
                    SMTPReply(421, "4.4.2", "\(limits.hostName) Error: no progress in the transaction; closing"))
                return
            }
            switch action {
            case .none:
                continue
            case .reply(let reply):
                try await say(reply)
            case .replyAndClose(let reply):
                await forwards.waitForAll()
                try await say(reply)
                return
            case .checkRecipient(let address, let sender):
                let refusal = await desk.checkRecipient(address, sender: sender, overTLS: dialogue.overTLS)
                try await say(dialogue.recipientChecked(address, refusal: refusal))
            case .deliver(let envelope):
                let (reply, forward) = await desk.deliver(envelope)
                try await say(dialogue.delivered(reply))
                if forwarding == Self.forwardsAtOnce, await forwards.next() != nil { forwarding -= 1 }
                forwards.addTask { await forward() }
                forwarding += 1
            case .startTLS(let reply):
                try await startTLS(on: channel, after: reply)
            }
            watch.note(dialogue.progress)
        }
    }

    /// The copies to `--smtp-forward` one connection has under way at most; a client sending
    /// faster waits for one of them to end.
    static let forwardsAtOnce = 4

    /// Answers STARTTLS, puts TLS in front of the connection and marks the switch for the framing,
    /// in one turn of the event loop: the client's handshake cannot arrive in between. Replies
    /// written before were handed to the loop earlier, so they go out before, in the clear.
    private func startTLS(on channel: any Channel, after reply: SMTPReply) async throws {
        guard let tls else { return }
        try await channel.eventLoop.submit {
            let operations = channel.pipeline.syncOperations
            operations.writeAndFlush(NIOAny(ByteBuffer(string: reply.wire)), promise: nil)
            try operations.addHandler(NIOSSLServerHandler(context: tls), position: .first)
            channel.pipeline.fireUserInboundEventTriggered(SMTPFramingHandler.TLSStarted())
        }.get()
    }
}
