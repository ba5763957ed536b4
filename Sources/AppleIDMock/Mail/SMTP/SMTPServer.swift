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
/// client that pipelines without reading holds no more than the channel's buffers.
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
        let admission = slots.admit(connection.channel)
        let slot: Int?
        switch admission {
        case .admitted(let id): slot = id
        case .admittedReclaiming(let id, let victim):
            slot = id
            let bye = SMTPReply(421, "4.4.2", "\(limits.hostName) Error: no progress; slot given to a new client")
            victim.writeAndFlush(NIOAny(ByteBuffer(string: bye.wire))).whenComplete { _ in
                victim.close(promise: nil)
            }
        case .full: slot = nil
        }
        defer { if let slot { slots.release(slot) } }
        do {
            try await connection.executeThenClose { inbound, outbound in
                func say(_ reply: SMTPReply) async throws {
                    try await outbound.write(ByteBuffer(string: reply.wire))
                }
                guard let slot else {
                    try await say(SMTPReply(421, "4.7.0", "\(limits.hostName) Error: too many connections"))
                    return
                }
                var dialogue = SMTPDialogue(limits: limits, tlsAvailable: tls != nil)
                var progress = dialogue.progress
                var lastProgress = ContinuousClock.now
                let patience = Duration.milliseconds(limits.idleMilliseconds)
                try await say(dialogue.greeting)
                do {
                    for try await input in inbound {
                        let action = dialogue.receive(input)
                        if dialogue.progress != progress {
                            progress = dialogue.progress
                            lastProgress = .now
                            slots.progressed(slot)
                        } else if ContinuousClock.now - lastProgress > patience {
                            // NOOP, RSET, refused commands: no progress; the slot is not held for ever.
                            try await say(
                                SMTPReply(
                                    421, "4.4.2", "\(limits.hostName) Error: no progress in the transaction; closing"))
                            return
                        }
                        switch action {
                        case .none:
                            continue
                        case .reply(let reply):
                            try await say(reply)
                        case .replyAndClose(let reply):
                            try await say(reply)
                            return
                        case .checkRecipient(let address, let sender):
                            let refusal = await desk.checkRecipient(address, sender: sender, overTLS: dialogue.overTLS)
                            try await say(dialogue.recipientChecked(address, refusal: refusal))
                        case .deliver(let envelope):
                            let (reply, forward) = await desk.deliver(envelope)
                            try await say(dialogue.delivered(reply))
                            await forward()
                        case .startTLS(let reply):
                            try await startTLS(on: connection.channel, after: reply)
                        }
                        if dialogue.progress != progress {
                            progress = dialogue.progress
                            lastProgress = .now
                            slots.progressed(slot)
                        }
                    }
                } catch  where Task.isCancelled {}
                if Task.isCancelled {
                    // The server is shutting down: a last word, as an MTA gives, not a silent close.
                    let bye = SMTPReply(421, "4.3.2", "\(limits.hostName) Service shutting down")
                    connection.channel.writeAndFlush(NIOAny(ByteBuffer(string: bye.wire)), promise: nil)
                }
            }
        } catch {
            logger.debug("smtp connection ended", metadata: ["error": "\(error)"])
        }
    }

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
