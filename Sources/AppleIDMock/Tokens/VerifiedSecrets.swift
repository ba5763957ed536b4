import Synchronization

/// The `client_secret` strings whose ES256 signature was already verified, with what was read from
/// them (bounded; past `capacity` it starts over). Backends reuse one secret for months, so the
/// signature is checked once per secret, while the time and identity rules are checked on every
/// request. Entries belong to one epoch of the control record: a reset or a scenario switch
/// forgets them all.
final class VerifiedSecrets: Sendable {
    /// What a verified secret says.
    struct Entry: Sendable {
        var kid: String
        var claims: ClientSecretClaims
    }

    /// The remembered entries and the epoch they belong to.
    private struct Memo {
        var epoch: Int
        var entries: [String: Entry] = [:]
    }

    private let memo = Mutex(Memo(epoch: .min))
    /// The most secrets remembered at once.
    let capacity: Int

    init(capacity: Int = 1_024) {
        self.capacity = capacity
    }

    /// The entry for `secret` verified in `epoch`, if any.
    func entry(_ secret: String, epoch: Int) -> Entry? {
        memo.withLock { memo in memo.epoch == epoch ? memo.entries[secret] : nil }
    }

    /// Remembers that `secret` verified in `epoch`.
    func remember(_ secret: String, _ entry: Entry, epoch: Int) {
        memo.withLock { memo in
            if memo.epoch != epoch || memo.entries.count >= capacity { memo = Memo(epoch: epoch) }
            memo.entries[secret] = entry
        }
    }

    /// How many secrets are remembered now (for tests).
    var count: Int { memo.withLock { $0.entries.count } }
}
