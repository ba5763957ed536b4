/// One message as received over SMTP: who said hello, the envelope, the data (dot-unstuffed, lines
/// ending in CRLF) and how it came.
struct SMTPEnvelope: Sendable, Equatable {
    /// The name the client gave in EHLO or HELO.
    var heloName: String
    /// The reverse path of MAIL FROM (empty: the null sender).
    var sender: String
    /// The recipients accepted at RCPT TO, in order.
    var recipients: [String]
    /// The message: headers and body, as the client sent them after DATA.
    var message: [UInt8]
    /// Whether the connection was under TLS.
    var overTLS: Bool
}
