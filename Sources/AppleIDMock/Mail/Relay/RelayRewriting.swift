import Foundation

/// The message as the relay delivers it to the user's real address: a `Received` and a
/// `Delivered-To` field on top, and `From` rewritten to an address of the relay so that the user's
/// replies go back through it (reference §7: `sales_at_example_com_<x>@icloud.com`). The body is
/// passed on byte for byte.
enum RelayRewriting {
    /// The address the user sees as the sender: the original address spelled into a local part,
    /// with a token fixed for (sender, relay address).
    static func replyAddress(for sender: String, relayAddress: String) -> String {
        let spelled = sender.lowercased().replacingOccurrences(of: "@", with: "_at_")
            .map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? String($0) : "_" }.joined()
        let token = IdentifierDerivation.token(purpose: "reply", length: 10, sender.lowercased(), relayAddress)
        return "\(spelled.prefix(40))_\(token)@icloud.com"
    }

    /// The rewritten `From` field's value: the display name kept (or the original address as one).
    static func rewrittenFrom(_ headers: MessageHeaders, relayAddress: String) -> String? {
        guard let address = headers.fromAddress else { return nil }
        let name = (headers.fromName ?? address).replacingOccurrences(of: "\"", with: "'")
        return "\"\(name)\" <\(replyAddress(for: address, relayAddress: relayAddress))>"
    }

    /// The delivered message.
    static func delivered(
        _ message: [UInt8], headers: MessageHeaders, target: RelayTarget, heloName: String, id: String, at: Date,
        overTLS: Bool
    ) -> [UInt8] {
        var top =
            "Received: from \(sanitized(heloName)) by privaterelay.appleid.com (apple-id-mock) with \(overTLS ? "ESMTPS" : "ESMTP") id \(id)\r\n\tfor <\(target.address)>; \(rfc5322Date(at))\r\n"
        top += "Delivered-To: \(target.deliverTo)\r\n"
        let rewritten = rewrittenFrom(headers, relayAddress: target.address)
        var out = Array(top.utf8)
        var replaced = false
        for field in rawFields(message, headerEnd: headers.bodyStart) {
            if !replaced, let rewritten, field.name.lowercased() == "from" {
                out += Array("From: \(rewritten)\r\n".utf8)
                replaced = true
            } else {
                out += field.bytes
            }
        }
        out += message[min(headers.bodyStart, message.count)...]
        return out
    }

    /// The header fields as written (each with its folded lines), up to and with the empty line.
    private static func rawFields(_ message: [UInt8], headerEnd: Int) -> [(name: String, bytes: ArraySlice<UInt8>)] {
        var fields: [(name: String, bytes: ArraySlice<UInt8>)] = []
        var start = 0
        var index = 0
        let end = min(headerEnd, message.count)
        while index < end {
            // Find the end of this field: a line end not followed by a folding space or tab.
            guard message[index] == UInt8(ascii: "\n") else {
                index += 1
                continue
            }
            let next = index + 1
            if next < end, message[next] == UInt8(ascii: " ") || message[next] == UInt8(ascii: "\t") {
                index = next
                continue
            }
            let bytes = message[start..<next]
            let name = String(decoding: bytes.prefix { $0 != UInt8(ascii: ":") }, as: UTF8.self)
            fields.append((name, bytes))
            start = next
            index = next
        }
        if start < end { fields.append(("", message[start..<end])) }
        return fields
    }

    private static func sanitized(_ text: String) -> String {
        String(text.prefix(200).map { $0.isASCII && !$0.isWhitespace && $0 != "\r" && $0 != "\n" ? $0 : "_" })
    }

    /// An RFC 5322 date, e.g. `Wed, 25 Nov 2026 16:00:00 +0000`.
    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss +0000"
        return formatter.string(from: date)
    }
}
