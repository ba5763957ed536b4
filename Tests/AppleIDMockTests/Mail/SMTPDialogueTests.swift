import Testing

@testable import AppleIDMock

/// The SMTP dialogue as a state machine, without sockets: order of commands, parameters, limits,
/// dot-unstuffing, bare LF, STARTTLS and the error limit.
@Suite("SMTP dialogue")
struct SMTPDialogueTests {
    /// A command line as the framing hands it on.
    static func line(_ text: String, crlf: Bool = true) -> SMTPInput { .line(Array(text.utf8), crlf: crlf) }

    /// The reply of an action that answers.
    static func reply(_ action: SMTPDialogue.Action) -> SMTPReply? {
        switch action {
        case .reply(let reply), .replyAndClose(let reply), .startTLS(let reply): return reply
        default: return nil
        }
    }

    /// A dialogue after EHLO and MAIL FROM, with `to` accepted.
    static func inTransaction(
        to recipients: [String] = ["a@privaterelay.appleid.com"], limits: SMTPLimits = SMTPLimits()
    )
        -> SMTPDialogue
    {
        var dialogue = SMTPDialogue(limits: limits)
        _ = dialogue.receive(line("EHLO client.example"))
        _ = dialogue.receive(line("MAIL FROM:<news@example.com> BODY=8BITMIME SIZE=100"))
        for recipient in recipients {
            guard
                case .checkRecipient(let address, "news@example.com") = dialogue.receive(line("RCPT TO:<\(recipient)>"))
            else {
                Issue.record("RCPT TO was not checked")
                continue
            }
            _ = dialogue.recipientChecked(address, refusal: nil)
        }
        return dialogue
    }

    @Test("EHLO advertises PIPELINING, SIZE, 8BITMIME and ENHANCEDSTATUSCODES; STARTTLS only with TLS")
    func ehlo() {
        var plain = SMTPDialogue()
        let lines = Self.reply(plain.receive(Self.line("EHLO me")))?.lines ?? []
        #expect(lines.contains("PIPELINING") && lines.contains("SIZE 10485760") && lines.contains("8BITMIME"))
        #expect(!lines.contains("STARTTLS"))
        var tls = SMTPDialogue(tlsAvailable: true)
        #expect(Self.reply(tls.receive(Self.line("ehlo me")))?.lines.contains("STARTTLS") == true)
        #expect(Self.reply(plain.receive(Self.line("STARTTLS")))?.code == 502)
    }

    @Test("commands out of order get 503; MAIL needs HELO, RCPT needs MAIL, DATA needs a recipient")
    func order() {
        var dialogue = SMTPDialogue()
        #expect(Self.reply(dialogue.receive(Self.line("MAIL FROM:<a@example.com>")))?.code == 503)
        _ = dialogue.receive(Self.line("HELO me"))
        #expect(Self.reply(dialogue.receive(Self.line("RCPT TO:<a@example.com>")))?.code == 503)
        #expect(Self.reply(dialogue.receive(Self.line("DATA")))?.code == 503)
        #expect(Self.reply(dialogue.receive(Self.line("MAIL FROM:<a@example.com>")))?.code == 250)
        #expect(
            Self.reply(dialogue.receive(Self.line("MAIL FROM:<a@example.com>")))?.description.contains("nested") == true
        )
        #expect(Self.reply(dialogue.receive(Self.line("DATA")))?.code == 554)
        #expect(Self.reply(dialogue.receive(Self.line("RSET")))?.code == 250)
        #expect(Self.reply(dialogue.receive(Self.line("NOOP")))?.code == 250)
        #expect(Self.reply(dialogue.receive(Self.line("VRFY sam")))?.code == 502)
        #expect(Self.reply(dialogue.receive(Self.line("FROB")))?.code == 502)
        #expect(dialogue.receive(Self.line("QUIT")) == .replyAndClose(SMTPReply(221, "2.0.0", "Bye")))
        #expect(dialogue.isClosed)
    }

    @Test("MAIL FROM: SIZE over the limit is 552, unknown parameters 555, bad BODY 501, null sender allowed")
    func mailParameters() {
        var dialogue = SMTPDialogue(limits: SMTPLimits(maxMessageBytes: 1000))
        _ = dialogue.receive(Self.line("EHLO me"))
        #expect(Self.reply(dialogue.receive(Self.line("MAIL FROM:<a@example.com> SIZE=1001")))?.code == 552)
        #expect(Self.reply(dialogue.receive(Self.line("MAIL FROM:<a@example.com> SMTPUTF8")))?.code == 555)
        #expect(Self.reply(dialogue.receive(Self.line("MAIL FROM:<a@example.com> BODY=BINARYMIME")))?.code == 501)
        #expect(Self.reply(dialogue.receive(Self.line("MAIL FROM:a@example.com")))?.code == 501)
        #expect(Self.reply(dialogue.receive(Self.line("MAIL FROM: <>")))?.code == 250)
    }

    @Test("DATA: dot-unstuffing, the end line, and a bare LF line kept as CRLF without ending the data")
    func data() {
        var dialogue = Self.inTransaction()
        #expect(Self.reply(dialogue.receive(Self.line("DATA")))?.code == 354)
        for input in [
            Self.line("Subject: hi"), Self.line(""), Self.line("..leading dot"), Self.line("bare", crlf: false),
            Self.line(".", crlf: false), Self.line("end"),
        ] {
            #expect(dialogue.receive(input) == .none)
        }
        guard case .deliver(let envelope) = dialogue.receive(Self.line(".")) else {
            Issue.record("the data did not end")
            return
        }
        #expect(
            String(decoding: envelope.message, as: UTF8.self)
                == "Subject: hi\r\n\r\n.leading dot\r\nbare\r\n\r\nend\r\n")
        #expect(envelope.sender == "news@example.com" && envelope.recipients == ["a@privaterelay.appleid.com"])
        #expect(dialogue.delivered(SMTPReply(250, "2.0.0", "Ok")).code == 250)
        #expect(Self.reply(dialogue.receive(Self.line("MAIL FROM:<b@example.com>")))?.code == 250)
    }

    @Test("a message over the size limit is read to its end, kept nowhere, and refused with 552")
    func tooBig() {
        var dialogue = Self.inTransaction(limits: SMTPLimits(maxMessageBytes: 100))
        _ = dialogue.receive(Self.line("DATA"))
        for _ in 0..<1000 { _ = dialogue.receive(.fragment(Array(repeating: 65, count: 2048))) }
        _ = dialogue.receive(Self.line(""))
        #expect(Self.reply(dialogue.receive(Self.line(".")))?.code == 552)
        #expect(Self.reply(dialogue.receive(Self.line("MAIL FROM:<a@example.com>")))?.code == 250)
    }

    @Test("more recipients than the limit get 452 each; the accepted ones stay")
    func tooManyRecipients() {
        var dialogue = Self.inTransaction(
            to: (0..<3).map { "r\($0)@privaterelay.appleid.com" }, limits: SMTPLimits(maxRecipients: 3))
        for _ in 0..<10 {
            #expect(Self.reply(dialogue.receive(Self.line("RCPT TO:<x@privaterelay.appleid.com>")))?.code == 452)
        }
        #expect(Self.reply(dialogue.receive(Self.line("DATA")))?.code == 354)
    }

    @Test("a refused recipient does not count; DATA with none accepted is 554")
    func refusedRecipient() {
        var dialogue = SMTPDialogue()
        _ = dialogue.receive(Self.line("HELO me"))
        _ = dialogue.receive(Self.line("MAIL FROM:<a@example.com>"))
        _ = dialogue.receive(Self.line("RCPT TO:<x@privaterelay.appleid.com>"))
        let refusal = SMTPReply(550, "5.1.1", "<x@privaterelay.appleid.com>: user not found")
        #expect(dialogue.recipientChecked("x@privaterelay.appleid.com", refusal: refusal) == refusal)
        #expect(Self.reply(dialogue.receive(Self.line("DATA")))?.code == 554)
    }

    @Test("an overlong command line is one 500 once it ends; too many errors close with 421")
    func overlongAndErrors() {
        var dialogue = SMTPDialogue(limits: SMTPLimits(maxErrors: 3))
        #expect(dialogue.receive(.fragment(Array(repeating: 65, count: 2048))) == .none)
        #expect(Self.reply(dialogue.receive(Self.line("AAAA")))?.code == 500)
        #expect(Self.reply(dialogue.receive(Self.line("BOGUS")))?.code == 502)
        guard case .replyAndClose(let reply) = dialogue.receive(Self.line("BOGUS")) else {
            Issue.record("not closed")
            return
        }
        #expect(reply.code == 421)
        #expect(dialogue.receive(Self.line("EHLO me")) == .none)
    }

    @Test("STARTTLS: plaintext sent after it is ignored until TLS starts, then EHLO again, without STARTTLS")
    func startTLS() {
        var dialogue = SMTPDialogue(tlsAvailable: true)
        _ = dialogue.receive(Self.line("EHLO me"))
        #expect(Self.reply(dialogue.receive(Self.line("STARTTLS")))?.code == 220)
        #expect(dialogue.receive(Self.line("MAIL FROM:<injected@example.com>")) == .none)
        #expect(dialogue.receive(.tlsStarted) == .none)
        #expect(dialogue.overTLS)
        #expect(Self.reply(dialogue.receive(Self.line("MAIL FROM:<a@example.com>")))?.code == 503)
        let lines = Self.reply(dialogue.receive(Self.line("EHLO me")))?.lines ?? []
        #expect(!lines.isEmpty && !lines.contains("STARTTLS"))
    }

    @Test("replies are written with continuation lines and CRLF")
    func wire() {
        #expect(SMTPReply(code: 250, enhanced: nil, lines: ["a", "b"]).wire == "250-a\r\n250 b\r\n")
        #expect(SMTPReply(550, "5.1.1", "<x>: user not found").wire == "550 5.1.1 <x>: user not found\r\n")
    }
}
