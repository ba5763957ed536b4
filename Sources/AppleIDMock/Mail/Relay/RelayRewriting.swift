#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The message as the relay delivers it to the user's real address: a `Received` and a
/// `Delivered-To` field on top, and `From` rewritten to an address of the relay so that the user's
/// replies go back through it (reference §7: `sales_at_example_com_<x>@icloud.com`). The body is
/// passed on byte for byte.
enum RelayRewriting {
    /// The address the user sees as the sender: the original address spelled into a local part,
    /// with a token fixed for (sender, relay address).
    static func replyAddress(for sender: String, relayAddress: String) -> String {
        let spelled = sender.lowercased().replacing("@", with: "_at_")
            .map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? String($0) : "_" }.joined()
        let token = IdentifierDerivation.token(purpose: "reply", length: 10, sender.lowercased(), relayAddress)
        return "\(spelled.prefix(40))_\(token)@icloud.com"
    }

    /// The rewritten `From` field's value: each author's display name kept (or its address as
    /// one), written back as a clean phrase (quoted, or encoded words), before its reply address.
    static func rewrittenFrom(_ headers: MessageHeaders, relayAddress: String) -> String? {
        guard case .success(let authors) = headers.authors else { return nil }
        return authors.from.map { author in
            let phrase = HeaderText.phrase(author.displayName ?? author.address) ?? HeaderText.phrase(author.address)
            return (phrase.map { $0 + " " } ?? "")
                + "<\(replyAddress(for: author.address, relayAddress: relayAddress))>"
        }.joined(separator: ",\r\n ")
    }

    /// The delivered message.
    static func delivered(
        _ message: [UInt8], headers: MessageHeaders, target: RelayTarget, heloName: String, id: String, at: Date,
        overTLS: Bool
    ) -> [UInt8] {
        let recipe = deliveredRecipe(
            message, headers: headers, target: target, heloName: heloName, id: id, bodyId: "", at: at,
            overTLS: overTLS)
        return Array(recipe.assembled(over: Data(message)) ?? Data())
    }

    /// The delivered message as kept: the relay's lines on top, over the received message kept
    /// once as `bodyId`, with its first `From` field replaced by the rewritten one.
    static func deliveredRecipe(
        _ message: [UInt8], headers: MessageHeaders, target: RelayTarget, heloName: String, id: String,
        bodyId: String, at: Date, overTLS: Bool
    ) -> MailMessage {
        var top =
            "Received: from \(HeaderText.token(heloName)) by privaterelay.appleid.com (apple-id-mock) with \(overTLS ? "ESMTPS" : "ESMTP") id \(id)\r\n\tfor <\(HeaderText.token(target.address))>; \(rfc5322Date(at))\r\n"
        top += "Delivered-To: \(HeaderText.token(target.deliverTo))\r\n"
        guard let rewritten = rewrittenFrom(headers, relayAddress: target.address),
            let field = rawFields(message, headerEnd: headers.bodyStart).first(where: {
                MessageHeaders.fieldName($0.name) == "from"
            })
        else { return MailMessage(data: Data(top.utf8), body: bodyId) }
        return MailMessage(
            data: Data(top.utf8), body: bodyId, replacing: field.bytes.startIndex..<field.bytes.endIndex,
            with: Array("From: \(rewritten)\r\n".utf8))
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

    /// An RFC 5322 date, e.g. `Wed, 25 Nov 2026 16:00:00 +0000`.
    /// Written as `DateFormatter` wrote it with `en_US_POSIX`, UTC and `EEE, dd MMM yyyy HH:mm:ss +0000`.
    static func rfc5322Date(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        // To the millisecond first, half a millisecond up, as CoreFoundation hands time to ICU.
        let instant = Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000 + 0.5).rounded(.down) / 1000)
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: instant)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func padded(_ value: Int?, _ width: Int) -> String {
            let digits = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let weekday = weekdays[((parts.weekday ?? 1) - 1) % 7]
        let month = months[((parts.month ?? 1) - 1) % 12]
        return "\(weekday), \(padded(parts.day, 2)) \(month) \(padded(parts.year, 4)) "
            + "\(padded(parts.hour, 2)):\(padded(parts.minute, 2)):\(padded(parts.second, 2)) +0000"
    }
}
