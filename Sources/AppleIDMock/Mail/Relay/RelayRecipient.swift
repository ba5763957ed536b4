/// A recipient of a message as the relay read it: the address as given at RCPT TO, and what the
/// relay knows of it (`nil`: no user of the world owns it).
struct RelayRecipient: Sendable, Equatable {
    /// The address as the client gave it.
    var address: String
    /// What the relay knows of it.
    var facts: RelayAddressFacts?
}
