/// The journal's names for what is not one of Apple's endpoints (those are named by their path,
/// `token`, `authorize`, …): the mock's own notification posts and the email relay.
enum JournalEndpoint {
    /// A server-to-server notification posted (or made to order) by the mock.
    static let notifications = "notifications"
    /// The private email relay (an SMTP transaction, or a reply sent for the user).
    static let smtp = "smtp"

    /// Every name a journal entry's `endpoint` can have: Apple's endpoints and the notifications
    /// (as fault rules name them), and the relay.
    static let all = FaultRule.Endpoint.allCases.map(\.rawValue) + [smtp]
}
