#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The relay's steps on the state, each one step of the store so that replicas agree: deciding
/// on a recipient, delivering a message, keeping a reply within the day's limit, and reading,
/// annotating and clearing the mailbox. Reached as `state.mail`.
struct MailSteps: Sendable {
    let state: MockState

    /// Decides on a recipient at RCPT TO (`RelayRules.decideRecipient`); a refusal is written to
    /// the mailbox.
    func checkRecipient(_ address: String, sender: String, overTLS: Bool, wallTime: Date) async throws
        -> RecipientDecision
    {
        try await state.changeControl { _, active, transaction in
            let facts = try await Self.relayFacts(
                address, world: active.world, now: active.now, transaction: transaction)
            let decision = RelayRules.decideRecipient(
                address, sender: sender, facts: facts, overTLS: overTLS, policy: RelayPolicy(world: active.world),
                stamp: MailStamp.new(now: active.now, wallTime: wallTime, namespace: state.scope.name, count: 1))
            if let record = decision.record { try await Self.keep(record, message: nil, transaction: transaction) }
            return decision
        }
    }

    /// What a delivery step decided: the reply, the records written, and the relayed ones with
    /// what to forward (built one at a time from the message kept once).
    struct DeliveryDecision: Sendable {
        var reply: SMTPReply
        var records: [MailRecord]
        var delivered: [(record: MailRecord, message: MailMessage)]
        var now: Date
    }

    /// Decides on a message after DATA (`RelayRules.decide`) and writes what was decided: the
    /// received message once, an entry per recipient, and each relayed one counted against its day.
    func deliver(_ envelope: SMTPEnvelope, wallTime: Date) async throws -> DeliveryDecision {
        let headers = MessageHeaders(parsing: envelope.message)
        let addresses = RelayRules.distinct(envelope.recipients)
        return try await state.changeControl { _, active, transaction in
            var recipients: [RelayRecipient] = []
            for address in addresses {
                let facts = try await Self.relayFacts(
                    address, world: active.world, now: active.now, transaction: transaction)
                recipients.append(RelayRecipient(address: address, facts: facts))
            }
            let stamp = MailStamp.new(
                now: active.now, wallTime: wallTime, namespace: state.scope.name, count: addresses.count + 1)
            let policy = RelayPolicy(world: active.world)
            let decision = RelayRules.decide(
                envelope, headers: headers, recipients: recipients, policy: policy, stamp: stamp)
            try await Self.keepBody(
                envelope.message, id: decision.bodyId, fits: decision.keepsBody, maxBytes: policy.mailboxMaxBytes,
                transaction: transaction)
            for entry in decision.entries {
                try await Self.keep(entry.record, message: entry.kept, transaction: transaction)
                if entry.counts {
                    try await Self.count(entry.record.recipient, now: active.now, transaction: transaction)
                }
            }
            return DeliveryDecision(
                reply: decision.reply, records: decision.entries.map(\.record),
                delivered: decision.entries.compactMap { entry in entry.delivered.map { (entry.record, $0) } },
                now: active.now)
        }
    }

    // MARK: - Replies from the user

    /// Why a reply cannot be sent now: the relay address reached its day's limit.
    struct ReplyLimitReached: Error, Sendable {
        var limit: Int
    }

    /// Checks the day's limit of `address` and counts a reply against it, in one step (two
    /// replies at once cannot both take the last one); `finishReply` gives it back on failure.
    func reserveReply(from address: String) async throws -> Result<Date, ReplyLimitReached> {
        try await state.changeControl { _, active, transaction in
            let limit = active.world.settings.mailDailyLimit
            let key = Self.quotaKey(address, now: active.now)
            let sent = try await transaction.get(Spaces.mailQuota, key)?.count ?? 0
            guard sent < limit else { return .failure(ReplyLimitReached(limit: limit)) }
            try await Self.count(address, now: active.now, transaction: transaction)
            return .success(active.now)
        }
    }

    /// Keeps a reply's record and message; a reply that was not sent gives back the count
    /// `reserveReply` took (on the day it was taken).
    func finishReply(_ record: MailRecord, message: [UInt8], reservedFor address: String, on day: Date)
        async throws
    {
        try await state.store.transaction { transaction in
            try await Self.keep(record, message: MailMessage(data: Data(message)), transaction: transaction)
            if record.outcome != .sent {
                let key = Self.quotaKey(address, now: day)
                if let current = try await transaction.get(Spaces.mailQuota, key), current.count > 0 {
                    let expires = Self.quotaExpiry(day)
                    try await transaction.put(
                        Spaces.mailQuota, key, MailCount(count: current.count - 1),
                        index: EntryIndex(expiresAt: expires))
                }
            }
        }
    }

    /// Messages counted today for a relay address and the day's limit.
    func quota(_ address: String) async throws -> (sent: Int, limit: Int) {
        try await state.changeControl { _, active, transaction in
            let sent = try await transaction.get(Spaces.mailQuota, Self.quotaKey(address, now: active.now))?.count ?? 0
            return (sent, active.world.settings.mailDailyLimit)
        }
    }

    // MARK: - The mailbox

    /// The mailbox, relayed entries and refusals together, newest first.
    func records() async throws -> [MailRecord] {
        try await state.store.transaction { transaction in
            let kept = try await transaction.list(Spaces.mail).map(\.value)
            let refused = try await transaction.list(Spaces.mailRefused).map(\.value)
            return (kept + refused).sorted { $0.id > $1.id }
        }
    }

    /// One record.
    func record(_ id: String) async throws -> MailRecord? {
        try await state.store.transaction { transaction in
            if let record = try await transaction.get(Spaces.mail, id) { return record }
            return try await transaction.get(Spaces.mailRefused, id)
        }
    }

    /// The message of a record as delivered (or received), if still kept.
    func message(_ id: String) async throws -> Data? {
        try await state.store.transaction { transaction in
            guard let kept = try await transaction.get(Spaces.mailRaw, id) else { return nil }
            guard let body = kept.body else { return kept.data }
            return kept.assembled(over: try await transaction.get(Spaces.mailBody, body)?.data)
        }
    }

    /// The message a delivery step decided to forward, assembled (`nil` once it is no longer kept).
    func assembled(_ message: MailMessage) async throws -> Data? {
        guard let body = message.body else { return message.data }
        return try await state.store.transaction { transaction in
            message.assembled(over: try await transaction.get(Spaces.mailBody, body)?.data)
        }
    }

    /// What the mailbox holds and dropped.
    func usage() async throws -> MailboxUsage {
        try await state.store.transaction { try await $0.get(Spaces.mailUsage, MailboxUsage.key) } ?? MailboxUsage()
    }

    /// Changes a record in one step (its forwarding outcome, say); `false` when it is gone.
    @discardableResult
    func update(_ id: String, _ change: @escaping @Sendable (inout MailRecord) -> Void) async throws -> Bool {
        try await state.store.transaction { transaction in
            guard var record = try await transaction.get(Spaces.mail, id) else { return false }
            change(&record)
            try await transaction.put(Spaces.mail, id, record)
            return true
        }
    }

    /// Empties the mailbox and the day's counts.
    func clear() async throws {
        try await state.store.transaction { try await $0.clear(Spaces.mailSpaces.map(\.name)) }
    }

    // MARK: - Helpers

    /// What the relay knows of `address` now.
    static func relayFacts(_ address: String, world: World, now: Date, transaction: any StateTransaction)
        async throws -> RelayAddressFacts?
    {
        guard let (user, teamId) = world.relayOwner(of: address) else { return nil }
        let session = Session(transaction: transaction)
        let consents = try await transaction.list(Spaces.consents, prefix: Session.consentKey(user.key, ""))
            .map(\.value)
            .filter {
                $0.userKey == user.key && $0.status == .authorized && $0.hidesEmail && $0.grantsEmail
                    && world.appGroups[$0.appGroupId]?.teamId == teamId
            }
        var groups: [(appGroupId: String, forwarding: Bool)] = []
        for consent in consents.sorted(by: { $0.appGroupId < $1.appGroupId }) {
            groups.append(
                (
                    consent.appGroupId,
                    try await session.relayForwarding(userKey: user.key, appGroupId: consent.appGroupId)
                )
            )
        }
        return RelayAddressFacts(
            userKey: user.key, teamId: teamId, realEmail: user.email,
            accountDeleted: try await session.isDeleted(user.key), hiddenGroups: groups,
            sentToday: try await transaction.get(Spaces.mailQuota, quotaKey(address, now: now))?.count ?? 0)
    }

    /// The key of a relay address's count for the day of `now` (UTC).
    static func quotaKey(_ address: String, now: Date) -> String {
        let day = Int((now.timeIntervalSince1970 / 86_400).rounded(.down))
        return "\(address.lowercased())\u{1F}\(day)"
    }

    /// When a day's count is swept: two days on, when the day is over.
    static func quotaExpiry(_ now: Date) -> Date {
        Date(timeIntervalSince1970: ((now.timeIntervalSince1970 / 86_400).rounded(.down) + 2) * 86_400)
    }

    private static func count(_ address: String, now: Date, transaction: any StateTransaction) async throws {
        let key = quotaKey(address, now: now)
        let current = try await transaction.get(Spaces.mailQuota, key)?.count ?? 0
        try await transaction.put(
            Spaces.mailQuota, key, MailCount(count: current + 1), index: EntryIndex(expiresAt: quotaExpiry(now)))
    }

    /// Keeps a record (refusals apart from the rest, each bounded) and what its message is made of.
    private static func keep(_ record: MailRecord, message: MailMessage?, transaction: any StateTransaction)
        async throws
    {
        if record.outcome.isRefusal {
            try await transaction.put(Spaces.mailRefused, record.id, record)
            try await transaction.prune(Spaces.mailRefused, keep: MailboxLimits.refusals)
        } else {
            try await transaction.put(Spaces.mail, record.id, record)
            try await transaction.prune(Spaces.mail, keep: MailboxLimits.records)
        }
        if let message {
            try await transaction.put(Spaces.mailRaw, record.id, message)
            try await transaction.prune(Spaces.mailRaw, keep: MailboxLimits.records + MailboxLimits.refusals)
        }
    }

    /// Keeps a received message once when it `fits` (else it is counted as dropped and not kept),
    /// dropping the oldest ones (counted in the usage) to stay within `maxBytes` and
    /// `MailboxLimits.rawMessages`.
    private static func keepBody(
        _ message: [UInt8], id: String, fits: Bool, maxBytes: Int, transaction: any StateTransaction
    ) async throws {
        var usage = try await transaction.get(Spaces.mailUsage, MailboxUsage.key) ?? MailboxUsage()
        if fits {
            try await transaction.put(Spaces.mailBody, id, MailMessage(data: Data(message)))
            usage.kept.append(MailboxUsage.Kept(id: id, bytes: message.count))
        } else {
            usage.droppedMessages += 1
            usage.droppedBytes += message.count
        }
        var total = usage.keptBytes
        while !usage.kept.isEmpty, total > maxBytes || usage.kept.count > MailboxLimits.rawMessages {
            let oldest = usage.kept.removeFirst()
            total -= oldest.bytes
            usage.droppedMessages += 1
            usage.droppedBytes += oldest.bytes
            try await transaction.delete(Spaces.mailBody, oldest.id)
        }
        try await transaction.put(Spaces.mailUsage, MailboxUsage.key, usage)
    }
}

extension MockState {
    /// The relay's steps on the state.
    var mail: MailSteps { MailSteps(state: self) }
}
