/// One mailbox of an RFC 5322 address field: the display name (encoded words decoded) and the
/// addr-spec, the only part the relay's rules compare.
struct MailAddress: Sendable, Equatable {
    /// The display name, decoded (`nil` when the mailbox has none).
    var displayName: String?
    /// The local part as RFC 5321 writes it: a dot-atom, or a quoted string with its quotes.
    var localPart: String
    /// The domain (a dot-atom or a `[literal]`).
    var domain: String

    /// `local@domain`.
    var address: String { "\(localPart)@\(domain)" }
}
