#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the relay decided about one recipient at RCPT TO (`RelayRules.decideRecipient`): the
/// relay target, or the refusal with the mailbox entry that records it.
struct RecipientDecision: Sendable {
    /// The target accepted (also one whose message will be dropped after DATA), or the refusal.
    var result: Result<RelayTarget, RelayRefusal>
    /// The entry written for a refusal.
    var record: MailRecord?
    /// When, on the mock's clock.
    var now: Date
}
