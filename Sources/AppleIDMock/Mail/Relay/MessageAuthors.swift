/// Who a message says wrote it, read as RFC 5322 §3.6.2 reads it: the one `From` field's
/// mailboxes (the obsolete `From :` spelling counts as a `From`), and the `Sender` field that must
/// name the one sender when `From` names more than one author.
struct MessageAuthors: Sendable, Equatable {
    /// The mailboxes of `From`, in order (at least one).
    var from: [MailAddress]
    /// The mailbox of `Sender`, if the message has one.
    var sender: MailAddress?

    /// Every address the relay checks against the registered senders: each author and the sender.
    var addresses: [String] { from.map(\.address) + (sender.map { [$0.address] } ?? []) }

    /// The authors of the message with `headers`, or why the relay cannot tell them.
    static func read(_ headers: MessageHeaders) -> Result<MessageAuthors, AuthorProblem> {
        let fromFields = headers.values("From")
        guard !fromFields.isEmpty else { return .failure(AuthorProblem(reason: "the message has no From header")) }
        guard fromFields.count == 1 else {
            return .failure(
                AuthorProblem(
                    reason: "the message has \(fromFields.count) From headers; RFC 5322 §3.6 allows exactly one"))
        }
        let from: [MailAddress]
        switch AddressListParser.mailboxes(in: fromFields[0]) {
        case .success(let found): from = found
        case .failure(let failure):
            return .failure(AuthorProblem(reason: "the From header is not an RFC 5322 address list: \(failure)"))
        }
        guard !from.isEmpty else {
            return .failure(AuthorProblem(reason: "the From header names no mailbox (an empty group)"))
        }
        let senderFields = headers.values("Sender")
        guard senderFields.count <= 1 else {
            return .failure(
                AuthorProblem(
                    reason: "the message has \(senderFields.count) Sender headers; RFC 5322 §3.6 allows at most one"))
        }
        var sender: MailAddress?
        if let field = senderFields.first {
            switch AddressListParser.mailboxes(in: field) {
            case .success(let found) where found.count == 1: sender = found[0]
            case .success(let found):
                return .failure(
                    AuthorProblem(reason: "the Sender header names \(found.count) mailboxes; it must name exactly one"))
            case .failure(let failure):
                return .failure(AuthorProblem(reason: "the Sender header is not an RFC 5322 mailbox: \(failure)"))
            }
        }
        guard from.count == 1 || sender != nil else {
            return .failure(
                AuthorProblem(
                    reason:
                        "the From header names \(from.count) mailboxes (\(from.map(\.address).joined(separator: ", "))) and there is no Sender header; RFC 5322 §3.6.2 requires one"
                ))
        }
        return .success(MessageAuthors(from: from, sender: sender))
    }
}

/// Why the relay cannot tell who wrote a message: the refusal's reason in the mailbox.
struct AuthorProblem: Error, Sendable, Equatable {
    var reason: String
}
