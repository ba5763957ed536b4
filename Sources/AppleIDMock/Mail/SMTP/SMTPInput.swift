/// What the framing hands the SMTP dialogue: a line, a piece of a line too long to hold, or the mark
/// that TLS started (inputs before it were sent in the clear after STARTTLS and are thrown away).
enum SMTPInput: Sendable, Equatable {
    /// A whole line without its ending; `crlf` is false for a bare LF ending.
    case line([UInt8], crlf: Bool)
    /// The first bytes of a line longer than the framing holds; the rest follows.
    case fragment([UInt8])
    /// TLS was set up after STARTTLS: what came before this mark was plaintext to discard.
    case tlsStarted
}
