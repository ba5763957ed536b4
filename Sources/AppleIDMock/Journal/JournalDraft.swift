import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the handlers of one `/auth/*` request learn for its journal entry (the user, the client
/// secret's key, why it was refused, what it handed out). It travels in the request context
/// (`MockRequestContext.journal`), and `AppleCallMiddleware` turns it into a `JournalEntry` when
/// the answer is known.
final class JournalDraft: Sendable {
    /// What has been noted.
    struct Notes: Sendable {
        var userKey: String?
        var sub: String?
        var secretKeyId: String?
        var secretTeamId: String?
        var refusal: (code: String, reason: String?)?
        var fault: String?
        var dropped = false
        var issued: [String: String] = [:]
    }

    private let notes = Mutex(Notes())

    init() {}

    /// The user and subject the request was about.
    func note(userKey: String?, sub: String? = nil) {
        notes.withLock {
            $0.userKey = userKey ?? $0.userKey
            $0.sub = sub ?? $0.sub
        }
    }

    /// The client secret's `kid` and the team that owns that key.
    func note(secretKeyId: String, teamId: String?) {
        notes.withLock {
            $0.secretKeyId = secretKeyId
            $0.secretTeamId = teamId
        }
    }

    /// Why the request was refused (Apple's code and the mock's reason).
    func note(refusal code: String, reason: String?) {
        notes.withLock { $0.refusal = (code, reason) }
    }

    /// The fault rule that fired, and whether it dropped the connection.
    func note(fault: String, dropped: Bool) {
        notes.withLock {
            $0.fault = fault
            $0.dropped = dropped
        }
    }

    /// A token or code the answer hands out (kept as a fingerprint).
    func note(issued name: String, _ value: String) {
        notes.withLock { $0.issued[name] = Fingerprint.of(value) }
    }

    /// The notes so far.
    var snapshot: Notes { notes.withLock { $0 } }
}
