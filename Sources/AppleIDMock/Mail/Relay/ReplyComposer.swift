#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A reply from the user to a relayed message, as Apple's relay sends it on to the team's mail
/// server: from the user's relay address, to the original sender, threaded on the original.
enum ReplyComposer {
    /// The envelope and message of the reply.
    struct Reply: Sendable, Equatable {
        var sender: String
        var recipient: String
        var message: [UInt8]
        var messageId: String
        var subject: String
    }

    /// Composes the reply of `record` with `text` (and `subject`, default `Re: <original>`).
    static func compose(
        to record: MailRecord, text: String, subject: String?, userName: String?, id: String, at: Date
    ) -> Reply {
        let original = record.from.flatMap(MessageHeaders.address(in:)) ?? record.envelopeSender
        let subject = subject ?? "Re: " + (record.subject ?? "")
        let messageId = "<\(id)@\(World.relayDomain)>"
        var lines = [
            "From: " + (userName.flatMap(HeaderText.phrase).map { $0 + " " } ?? "") + "<\(record.recipient)>",
            "To: <\(original)>",
            "Subject: \(HeaderText.unstructured(subject))",
            "Date: \(RelayRewriting.rfc5322Date(at))",
            "Message-ID: \(messageId)",
        ]
        if let parent = record.messageId {
            lines += ["In-Reply-To: \(clean(parent))", "References: \(clean(parent))"]
        }
        lines += [
            "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit", "",
        ]
        let body = text.replacing("\r\n", with: "\n").split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .joined(separator: "\r\n")
        let message = Array((lines.joined(separator: "\r\n") + "\r\n" + body + "\r\n").utf8)
        return Reply(
            sender: record.recipient, recipient: original, message: message, messageId: messageId, subject: subject)
    }

    /// `text` as one header line.
    private static func clean(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { AddressListParser.isControl($0) || $0 == "\"" ? " " : $0 }))
    }
}
