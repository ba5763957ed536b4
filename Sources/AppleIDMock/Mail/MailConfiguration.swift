/// The email relay's part of the server's configuration: the SMTP port (off when `nil`) and the
/// SMTP servers messages are copied to and replies sent through.
public struct MailConfiguration: Sendable, Equatable {
    /// The SMTP port to listen on (`--smtp-port`; 0 picks a free one; `nil`: no SMTP listener).
    public var smtpPort: Int?
    /// Where every relayed message is also sent, as delivered (`--smtp-forward host:port`).
    public var forward: SMTPAddress?
    /// Where replies from the user are sent (`--smtp-outbound host:port`; default: `forward`).
    public var outbound: SMTPAddress?

    public init(smtpPort: Int? = nil, forward: SMTPAddress? = nil, outbound: SMTPAddress? = nil) {
        self.smtpPort = smtpPort
        self.forward = forward
        self.outbound = outbound
    }

    /// Where replies go: `outbound`, else `forward`.
    var replyServer: SMTPAddress? { outbound ?? forward }
}

/// An SMTP server's `host:port`.
public struct SMTPAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads `host:port` (`[::1]:25` for IPv6); `nil` when it is not that.
    public init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65_535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(" ") else { return nil }
        self.host = host
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
