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

    @Test("DATA: exact dot-unstuffing and the end line <CRLF>.<CRLF>")
    func data() {
        var dialogue = Self.inTransaction()
        #expect(Self.reply(dialogue.receive(Self.line("DATA")))?.code == 354)
        for input in [
            Self.line("Subject: hi"), Self.line(""), Self.line("..leading dot"), Self.line("...two"),
            Self.line("a.b"), Self.line(". "), Self.line("end"),
        ] {
            #expect(dialogue.receive(input) == .none)
        }
        guard case .deliver(let envelope) = dialogue.receive(Self.line(".")) else {
            Issue.record("the data did not end")
            return
        }
        #expect(
            String(decoding: envelope.message, as: UTF8.self)
                == "Subject: hi\r\n\r\n.leading dot\r\n..two\r\na.b\r\n \r\nend\r\n")
        #expect(envelope.sender == "news@example.com" && envelope.recipients == ["a@privaterelay.appleid.com"])
        #expect(dialogue.delivered(SMTPReply(250, "2.0.0", "Ok")).code == 250)
        #expect(Self.reply(dialogue.receive(Self.line("MAIL FROM:<b@example.com>")))?.code == 250)
    }

    @Test("smuggling: <LF>.<CRLF> does not end the data; what follows is data; the message is refused 550")
    func smuggling() {
        var dialogue = Self.inTransaction()
        _ = dialogue.receive(Self.line("DATA"))
        for input in [
            Self.line("Subject: hi"), Self.line(""), Self.line("body", crlf: false), Self.line("."),
            Self.line("MAIL FROM:<evil@evil.test>"), Self.line("RCPT TO:<a@privaterelay.appleid.com>"),
            Self.line("DATA"), Self.line("From: evil@evil.test"),
        ] {
            #expect(dialogue.receive(input) == .none)
        }
        #expect(
            Self.reply(dialogue.receive(Self.line(".")))?.description.hasPrefix("550 5.6.0 Error: bare <LF>") == true)
        // One transaction ended; the next starts clean.
        #expect(Self.reply(dialogue.receive(Self.line("MAIL FROM:<b@example.com>")))?.code == 250)
    }

    @Test("a bare LF or bare CR anywhere in DATA refuses the message; a '.' after a bare LF is data")
    func bareLineEnds() {
        for (inputs, ended) in [
            ([Self.line("a", crlf: false), Self.line(".")], false),
            ([Self.line(".", crlf: false), Self.line(".")], false),
            ([Self.line("a\rb")], true), ([Self.line("a\r")], true), ([Self.line("x\r.\r")], true),
        ] {
            var dialogue = Self.inTransaction()
            _ = dialogue.receive(Self.line("DATA"))
            for input in inputs { #expect(dialogue.receive(input) == .none) }
            if !ended { #expect(dialogue.receive(Self.line("tail")) == .none) }
            #expect(Self.reply(dialogue.receive(Self.line(".")))?.code == 550)
        }
    }

    @Test("a data line of 1000 octets with CRLF passes; 1001 is refused 552, pieces counted together")
    func longLines() {
        var fits = Self.inTransaction()
        _ = fits.receive(Self.line("DATA"))
        _ = fits.receive(Self.line(String(repeating: "a", count: 998)))
        guard case .deliver = fits.receive(Self.line(".")) else {
            Issue.record("998 octets were refused")
            return
        }
        var over = Self.inTransaction()
        _ = over.receive(Self.line("DATA"))
        _ = over.receive(.fragment(Array(repeating: 65, count: 500)))
        _ = over.receive(Self.line(String(repeating: "a", count: 499)))
        #expect(Self.reply(over.receive(Self.line(".")))?.description.hasPrefix("552 5.6.0") == true)
        // A stuffed dot does not count.
        var stuffed = Self.inTransaction()
        _ = stuffed.receive(Self.line("DATA"))
        _ = stuffed.receive(Self.line("." + String(repeating: "a", count: 998)))
        #expect(Self.reply(stuffed.receive(Self.line(".")))?.code == 552)
    }

    @Test("commands with CR, NUL, DEL, 8-bit or invalid UTF-8 get a fixed 501 that quotes nothing")
    func rawBytes() {
        for bytes: [UInt8] in [
            Array("RCPT TO:<a\rb@evil.test>".utf8), Array("MAIL FROM:<a\0@x.test>".utf8),
            [0x4E, 0x4F, 0x4F, 0x50, 0x7F],
            Array("EHLO caf\u{e9}".utf8), [0x45, 0x48, 0x4C, 0x4F, 0x20, 0xC3, 0x28],
        ] {
            var dialogue = Self.inTransaction()
            let reply = Self.reply(dialogue.receive(.line(bytes, crlf: true)))
            #expect(reply?.code == 501)
            #expect(reply?.wire.utf8.allSatisfy { (32...126).contains($0) || $0 == 13 || $0 == 10 } == true)
            #expect(reply?.wire.contains("evil") == false)
        }
        var dialogue = Self.inTransaction()
        let option = Self.reply(dialogue.receive(Self.line("RCPT TO:<b@privaterelay.appleid.com> A=1\t250-FAKE")))
        #expect(option?.code == 555 && option?.wire.components(separatedBy: "\r\n").count == 2)
        #expect(SMTPReply.quoted("a\rb\u{0}c\u{7F}\u{e9}") == "a?b?c??")
        #expect(SMTPReply(550, nil, "a\r\n250 FAKE").wire == "550 a 250 FAKE\r\n")
    }

    @Test("a repeated recipient is accepted once: one delivery, whatever its case")
    func repeatedRecipient() {
        var dialogue = Self.inTransaction(to: ["a@privaterelay.appleid.com"])
        for _ in 0..<5 {
            #expect(Self.reply(dialogue.receive(Self.line("RCPT TO:<A@privaterelay.appleid.com>")))?.code == 250)
        }
        _ = dialogue.receive(Self.line("DATA"))
        guard case .deliver(let envelope) = dialogue.receive(Self.line(".")) else {
            Issue.record("not delivered")
            return
        }
        #expect(envelope.recipients == ["a@privaterelay.appleid.com"])
    }

    @Test("envelope addresses by RFC 5321: quoted local parts accepted, two @ and bare spaces refused")
    func envelopeGrammar() {
        var dialogue = SMTPDialogue()
        _ = dialogue.receive(Self.line("EHLO me"))
        #expect(Self.reply(dialogue.receive(Self.line("MAIL FROM:<\"john doe\"@example.com>")))?.code == 250)
        for bad in [
            "<evil@evil.test@example.com>", "<a b@example.com>", "<a@>", "<@example.com>", "<a..b@x.com>",
            "<a@-x.com>", "<a@x.com>junk", "<\"a>@x.com",
        ] {
            #expect(Self.reply(dialogue.receive(Self.line("RCPT TO:\(bad)")))?.code == 501, "\(bad)")
        }
        guard case .checkRecipient(let quoted, _) = dialogue.receive(Self.line("RCPT TO:<\"a>b\"@x.com>")) else {
            Issue.record("a quoted local part with > was refused")
            return
        }
        #expect(quoted == "\"a>b\"@x.com")
        #expect(SMTPPath.isMailbox("x@[192.0.2.1]") && SMTPPath.isMailbox("a.b+c@example.com"))
        #expect(!SMTPPath.isMailbox("a@b@c") && !SMTPPath.isMailbox(String(repeating: "a", count: 65) + "@x.com"))
    }

    @Test("progress counts MAIL, RCPT, DATA, data lines and deliveries; NOOP, RSET and errors do not")
    func progress() {
        var dialogue = SMTPDialogue()
        _ = dialogue.receive(Self.line("EHLO me"))
        let start = dialogue.progress
        for command in ["NOOP", "RSET", "NOOP", "BOGUS", "HELP"] { _ = dialogue.receive(Self.line(command)) }
        #expect(dialogue.progress == start)
        _ = dialogue.receive(Self.line("MAIL FROM:<a@example.com>"))
        #expect(dialogue.progress == start + 1)
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
