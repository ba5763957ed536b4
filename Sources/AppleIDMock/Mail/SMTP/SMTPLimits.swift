/// The bounds of one SMTP connection: what the server advertises and enforces so that no client
/// makes it hold more than a message's worth of memory.
struct SMTPLimits: Sendable, Equatable {
    /// The name in the greeting and EHLO.
    var hostName = "privaterelay.appleid.com"
    /// The largest message accepted (advertised as `SIZE`), in bytes.
    var maxMessageBytes = 10 * 1024 * 1024
    /// The most recipients of one message (RFC 5321 asks servers to take at least 100).
    var maxRecipients = 100
    /// The longest command line, and the longest piece of a data line handed on at once.
    var maxLineLength = 2048
    /// Errors tolerated on one connection before it is closed with `421`.
    var maxErrors = 20
    /// Commands tolerated on one connection (pipelining abuse) before it is closed with `421`.
    var maxCommands = 20_000
    /// How long a client may stay silent, or keep talking without moving a transaction on (NOOP,
    /// RSET), in milliseconds (the server's `--idle-timeout`).
    var idleMilliseconds: Int64 = 30_000
    /// Connections served at once; when all are taken, the one longest without progress gives
    /// its slot to a new client, else the new client is answered `421` and closed.
    var maxConnections = 64
    /// How long a connection must have gone without progress before its slot can go to a new
    /// client (at most `idleMilliseconds`).
    var reclaimAfterMilliseconds: Int64 = 1_000
}
