/// The server side of one SMTP connection as a pure state machine (RFC 5321, with PIPELINING,
/// SIZE, 8BITMIME, ENHANCEDSTATUSCODES and STARTTLS): it takes the framing's inputs and says what to
/// answer or do; checking a recipient and delivering a message are left to the caller, who feeds
/// the outcome back. No sockets, no clock, no store: every rule here is tested on values.
struct SMTPDialogue: Sendable {
    /// What the connection does next.
    enum Action: Sendable, Equatable {
        /// Send the reply.
        case reply(SMTPReply)
        /// Send the reply and close the connection.
        case replyAndClose(SMTPReply)
        /// Decide on the recipient (for the envelope sender given), then call `recipientChecked`.
        case checkRecipient(String, sender: String)
        /// Deliver the message, then call `delivered`.
        case deliver(SMTPEnvelope)
        /// Send the reply, then put TLS in place (the framing then marks `.tlsStarted`).
        case startTLS(SMTPReply)
        /// Nothing to say (a data line, or plaintext sent after STARTTLS).
        case none
    }

    /// Where the dialogue stands.
    private enum Phase: Sendable, Equatable {
        /// No EHLO or HELO yet.
        case fresh
        /// Greeted: ready for MAIL.
        case ready
        /// After MAIL FROM: taking RCPT TO.
        case transaction
        /// After DATA: taking the message.
        case data
        /// Waiting for the caller's decision on a recipient or a message.
        case waiting
        /// After STARTTLS, until the TLS mark.
        case awaitingTLS
        /// After QUIT or a fatal error.
        case closed
    }

    let limits: SMTPLimits
    /// Whether STARTTLS is offered (a certificate is configured).
    let tlsAvailable: Bool
    private(set) var overTLS = false
    private var phase = Phase.fresh
    private var heloName = ""
    private var sender = ""
    private var recipients: [String] = []
    private var message: [UInt8] = []
    private var messageOverflow = false
    private var atLineStart = true
    /// The length of the data line being read (its pieces so far).
    private var dataLineLength = 0
    /// Why the message in DATA is refused at its end (a bare CR or LF, a line too long).
    private var dataProblem: SMTPReply?
    private var commandOverflow = false
    private var errors = 0
    private var commands = 0
    /// Counts the steps that move a transaction on (MAIL, RCPT, DATA and its lines, the delivery):
    /// the server bounds the time a connection holds a slot without it growing. NOOP, RSET, EHLO
    /// and refused commands do not count.
    private(set) var progress = 0

    init(limits: SMTPLimits = SMTPLimits(), tlsAvailable: Bool = false) {
        self.limits = limits
        self.tlsAvailable = tlsAvailable
    }

    /// The first thing the server says.
    var greeting: SMTPReply {
        SMTPReply(220, nil, "\(limits.hostName) ESMTP apple-id-mock private email relay")
    }

    /// Whether the connection should be closed.
    var isClosed: Bool { phase == .closed }

    /// Takes one input from the framing.
    mutating func receive(_ input: SMTPInput) -> Action {
        switch (phase, input) {
        case (.closed, _), (.waiting, _):
            return .none
        case (.awaitingTLS, .tlsStarted):
            // RFC 3207 §4.2: the client starts over, with EHLO.
            phase = .fresh
            overTLS = true
            resetTransaction()
            heloName = ""
            return .none
        case (.awaitingTLS, _), (_, .tlsStarted):
            return .none
        case (.data, .fragment(let bytes)):
            progress += 1
            var content = bytes[...]
            if atLineStart, content.first == UInt8(ascii: ".") { content = content.dropFirst() }
            dataLineLength += bytes.count
            check(content)
            append(content, endsLine: false)
            return .none
        case (.data, .line(let bytes, let crlf)):
            progress += 1
            // Only <CRLF>.<CRLF> ends the data: a "." after a bare LF is data (RFC 5321 §4.1.1.4),
            // and a bare LF never ends a line, so nothing after it can run as a command.
            if atLineStart, crlf, bytes == [UInt8(ascii: ".")] { return endOfData() }
            var content = bytes[...]
            if atLineStart, content.first == UInt8(ascii: ".") { content = content.dropFirst() }
            dataLineLength += bytes.count
            check(content)
            if !crlf {
                dataProblem =
                    dataProblem
                    ?? SMTPReply(550, "5.6.0", "Error: bare <LF> in the message; lines end with <CR><LF>")
            }
            if dataLineLength + 2 > Self.maxDataLine {
                dataProblem =
                    dataProblem
                    ?? SMTPReply(
                        552, "5.6.0", "Error: a message line is longer than \(Self.maxDataLine) octets with <CR><LF>")
            }
            dataLineLength = 0
            append(content, endsLine: crlf)
            return .none
        case (_, .fragment):
            commandOverflow = true
            return .none
        case (_, .line(let bytes, _)):
            if commandOverflow {
                commandOverflow = false
                return error(SMTPReply(500, "5.5.2", "Error: line too long"))
            }
            commands += 1
            if commands > limits.maxCommands {
                phase = .closed
                return .replyAndClose(SMTPReply(421, "4.7.0", "\(limits.hostName) Error: too many commands"))
            }
            guard SMTPCommand.isPrintable(bytes) else {
                return error(
                    SMTPReply(501, "5.5.2", "Error: command with bytes other than printable ASCII (CR, NUL, 8-bit...)"))
            }
            return command(SMTPCommand.parse(String(decoding: bytes, as: UTF8.self)))
        }
    }

    /// The caller's decision on the recipient asked for: `nil` accepts it, a reply refuses it.
    mutating func recipientChecked(_ address: String, refusal: SMTPReply?) -> SMTPReply {
        phase = .transaction
        if let refusal { return refusal }
        progress += 1
        recipients.append(address)
        return SMTPReply(250, "2.1.5", "Ok")
    }

    /// The caller's answer to a delivered message; the transaction ends either way.
    mutating func delivered(_ reply: SMTPReply) -> SMTPReply {
        progress += 1
        phase = .ready
        resetTransaction()
        return reply
    }

    // MARK: - Commands

    private mutating func command(_ command: SMTPCommand) -> Action {
        switch command {
        case .ehlo(let name):
            heloName = name
            phase = .ready
            resetTransaction()
            var lines = [limits.hostName, "PIPELINING", "SIZE \(limits.maxMessageBytes)", "8BITMIME"]
            if tlsAvailable && !overTLS { lines.append("STARTTLS") }
            lines += ["ENHANCEDSTATUSCODES"]
            return .reply(SMTPReply(code: 250, enhanced: nil, lines: lines))
        case .helo(let name):
            heloName = name
            phase = .ready
            resetTransaction()
            return .reply(SMTPReply(250, nil, limits.hostName))
        case .mail(let from, let parameters):
            return mail(from: from, parameters: parameters)
        case .rcpt(let to, let parameters):
            guard phase == .transaction else {
                return error(SMTPReply(503, "5.5.1", "Error: need MAIL command"))
            }
            if let name = parameters.keys.sorted().first {
                return error(SMTPReply(555, "5.5.4", "Unsupported option: \(SMTPReply.quoted(name, limit: 40))"))
            }
            if recipients.contains(where: { $0.lowercased() == to.lowercased() }) {
                // A repeated recipient is one delivery: accepted again, kept once.
                return .reply(SMTPReply(250, "2.1.5", "Ok (already a recipient; delivered once)"))
            }
            guard recipients.count < limits.maxRecipients else {
                return .reply(SMTPReply(452, "4.5.3", "Error: too many recipients"))
            }
            phase = .waiting
            return .checkRecipient(to, sender: sender)
        case .data:
            guard phase == .transaction else {
                return error(SMTPReply(503, "5.5.1", "Error: need RCPT command"))
            }
            guard !recipients.isEmpty else { return error(SMTPReply(554, "5.5.1", "Error: no valid recipients")) }
            phase = .data
            progress += 1
            message = []
            messageOverflow = false
            atLineStart = true
            dataLineLength = 0
            dataProblem = nil
            return .reply(SMTPReply(354, nil, "End data with <CR><LF>.<CR><LF>"))
        case .rset:
            if phase != .fresh { phase = .ready }
            resetTransaction()
            return .reply(SMTPReply(250, "2.0.0", "Ok"))
        case .noop:
            return .reply(SMTPReply(250, "2.0.0", "Ok"))
        case .quit:
            phase = .closed
            return .replyAndClose(SMTPReply(221, "2.0.0", "Bye"))
        case .vrfy:
            return .reply(SMTPReply(502, "5.5.1", "VRFY command is disabled"))
        case .expn:
            return .reply(SMTPReply(502, "5.5.1", "EXPN command is disabled"))
        case .help:
            return .reply(SMTPReply(214, "2.0.0", "https://www.rfc-editor.org/rfc/rfc5321"))
        case .startTLS:
            guard tlsAvailable, !overTLS else {
                return error(SMTPReply(502, "5.5.1", "STARTTLS not offered (no --tls, or TLS is on)"))
            }
            guard phase == .ready || phase == .fresh else {
                return error(SMTPReply(503, "5.5.1", "Error: STARTTLS in a mail transaction"))
            }
            phase = .awaitingTLS
            return .startTLS(SMTPReply(220, "2.0.0", "Ready to start TLS"))
        case .auth:
            return error(SMTPReply(502, "5.5.1", "Error: authentication not enabled"))
        case .syntaxError(let verb):
            return error(SMTPReply(501, "5.5.4", "Syntax error in \(verb) command"))
        case .unknown:
            return error(SMTPReply(502, "5.5.2", "Error: command not recognized"))
        }
    }

    private mutating func mail(from: String, parameters: [String: String]) -> Action {
        switch phase {
        case .fresh: return error(SMTPReply(503, "5.5.1", "Error: send HELO/EHLO first"))
        case .transaction: return error(SMTPReply(503, "5.5.1", "Error: nested MAIL command"))
        default: break
        }
        for (name, value) in parameters.sorted(by: { $0.key < $1.key }) {
            switch name {
            case "SIZE":
                guard let size = Int(value), size >= 0 else {
                    return error(SMTPReply(501, "5.5.4", "Bad message size syntax"))
                }
                if size > limits.maxMessageBytes {
                    return .reply(SMTPReply(552, "5.3.4", "Message size exceeds fixed limit"))
                }
            case "BODY":
                guard ["7BIT", "8BITMIME"].contains(value.uppercased()) else {
                    return error(SMTPReply(501, "5.5.4", "Bad BODY parameter"))
                }
            default:
                return error(SMTPReply(555, "5.5.4", "Unsupported option: \(SMTPReply.quoted(name, limit: 40))"))
            }
        }
        progress += 1
        sender = from
        recipients = []
        phase = .transaction
        return .reply(SMTPReply(250, "2.1.0", "Ok"))
    }

    // MARK: - Data

    /// Adds a line's content (and CRLF when it ends a line); past the size limit only counts.
    private mutating func append(_ content: ArraySlice<UInt8>, endsLine: Bool) {
        atLineStart = endsLine
        guard !messageOverflow else { return }
        guard dataProblem == nil else {
            // Refused at its end whatever follows: nothing more is kept.
            message = []
            return
        }
        let added = content.count + (endsLine ? 2 : 0)
        guard message.count + added <= limits.maxMessageBytes else {
            messageOverflow = true
            message = []
            return
        }
        message.append(contentsOf: content)
        if endsLine { message.append(contentsOf: [13, 10]) }
    }

    /// The longest data line, with its CRLF (RFC 5321 §4.5.3.1.6).
    static let maxDataLine = 1_000

    /// Notes a bare CR in a data line's content.
    private mutating func check(_ content: ArraySlice<UInt8>) {
        if dataProblem == nil, content.contains(13) {
            dataProblem = SMTPReply(550, "5.6.0", "Error: bare <CR> in the message; lines end with <CR><LF>")
        }
    }

    private mutating func endOfData() -> Action {
        if let dataProblem {
            phase = .ready
            resetTransaction()
            return .reply(dataProblem)
        }
        if messageOverflow {
            phase = .ready
            resetTransaction()
            return .reply(SMTPReply(552, "5.3.4", "Error: message file too big"))
        }
        phase = .waiting
        return .deliver(
            SMTPEnvelope(
                heloName: heloName, sender: sender, recipients: recipients, message: message, overTLS: overTLS))
    }

    // MARK: - Helpers

    private mutating func resetTransaction() {
        sender = ""
        recipients = []
        message = []
        messageOverflow = false
        dataProblem = nil
        dataLineLength = 0
    }

    /// A refusal that counts toward the connection's error limit.
    private mutating func error(_ reply: SMTPReply) -> Action {
        errors += 1
        guard errors < limits.maxErrors else {
            phase = .closed
            return .replyAndClose(SMTPReply(421, "4.7.0", "\(limits.hostName) Error: too many errors"))
        }
        return .reply(reply)
    }
}
