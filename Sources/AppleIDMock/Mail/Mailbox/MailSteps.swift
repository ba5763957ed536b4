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

    /// What a step decided about one recipient, with the record written for a refusal.
    struct RecipientDecision: Sendable {
        var result: Result<RelayTarget, RelayRefusal>
        var record: MailRecord?
        var now: Date
    }

    /// Decides on a recipient at RCPT TO; a refusal is written to the mailbox.
    func checkRecipient(_ address: String, sender: String, overTLS: Bool, wallTime: Date) async throws
        -> RecipientDecision
    {
        try await state.changeControl { _, active, transaction in
            let now = active.now
            let facts = try await Self.relayFacts(address, world: active.world, now: now, transaction: transaction)
            let result = RelayRules.recipient(
                address, sender: sender, facts: facts, teams: active.world.teams,
                dailyLimit: active.world.settings.mailDailyLimit)
            guard case .failure(let refusal) = result else { return RecipientDecision(result: result, now: now) }
            if let facts, Self.drops(refusal, active.world.settings) {
                // Accepted here; the message is kept as dropped after DATA.
                let target = RelayTarget(
                    address: address.lowercased(), userKey: facts.userKey, teamId: facts.teamId,
                    deliverTo: facts.realEmail)
                return RecipientDecision(result: .success(target), now: now)
            }
            let record = MailRecord(
                id: MailRecord.newId(at: wallTime), at: now, wallTime: wallTime, direction: .inbound,
                outcome: refusal.outcome, reason: refusal.reason, smtpReply: refusal.reply.description,
                envelopeSender: sender, recipient: address.lowercased(), userKey: facts?.userKey, teamId: facts?.teamId,
                overTLS: overTLS, hasRaw: false, namespace: state.scope.name)
            try await Self.keep(record, message: nil, transaction: transaction)
            return RecipientDecision(result: result, record: record, now: now)
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

    /// Decides on a message after DATA and keeps it once: relayed to every recipient (each
    /// counted once against its day), or refused for all.
    func deliver(_ envelope: SMTPEnvelope, wallTime: Date) async throws -> DeliveryDecision {
        let headers = MessageHeaders(parsing: envelope.message)
        var seen: Set<String> = []
        let recipients = envelope.recipients.filter { seen.insert($0.lowercased()).inserted }
        return try await state.changeControl { _, active, transaction in
            let now = active.now
            let world = active.world
            var targets: [RelayTarget] = []
            var refusal: RelayRefusal?
            // Unregistered senders under `mailUnregisteredSenders: drop`: accepted, never delivered.
            var dropped: [(address: String, refusal: RelayRefusal)] = []
            var facts: [String: RelayAddressFacts] = [:]
            for address in recipients {
                let found = try await Self.relayFacts(address, world: world, now: now, transaction: transaction)
                facts[address] = found
                switch RelayRules.recipient(
                    address, sender: envelope.sender, facts: found, teams: world.teams,
                    dailyLimit: world.settings.mailDailyLimit)
                {
                case .success(let target): targets.append(target)
                case .failure(let found) where Self.drops(found, world.settings): dropped.append((address, found))
                case .failure(let found): refusal = refusal ?? found
                }
            }
            var messageRefusal = RelayRules.message(
                headers, targets: targets, teams: world.teams, requireDKIM: world.settings.mailRequireDkimSignature)
            if refusal == nil, let found = messageRefusal, Self.drops(found, world.settings) {
                dropped += targets.map { ($0.address, found) }
                targets = []
                messageRefusal = nil
            }
            let firstId = MailRecord.newId(at: wallTime)
            let bodyKept = try await Self.keepBody(
                envelope.message, id: firstId, maxBytes: world.settings.mailboxMaxBytes, transaction: transaction)
            if let refusal = refusal ?? messageRefusal {
                var records: [MailRecord] = []
                for address in recipients {
                    var record = Self.record(
                        envelope, headers: headers, recipient: address, now: now, wallTime: wallTime,
                        outcome: refusal.outcome, namespace: self.state.scope.name)
                    if records.isEmpty { record.id = firstId }
                    record.reason = refusal.reason
                    record.smtpReply = refusal.reply.description
                    record.userKey = facts[address]?.userKey
                    record.teamId = facts[address]?.teamId
                    record.hasRaw = bodyKept
                    try await Self.keep(
                        record, message: bodyKept ? MailMessage(data: Data(), body: firstId) : nil,
                        transaction: transaction)
                    records.append(record)
                }
                return DeliveryDecision(reply: refusal.reply, records: records, delivered: [], now: now)
            }
            var delivered: [(record: MailRecord, message: MailMessage)] = []
            let reply = SMTPReply(250, "2.0.0", "Ok: queued as \(firstId)")
            var records: [MailRecord] = []
            for (position, drop) in dropped.enumerated() {
                var record = Self.record(
                    envelope, headers: headers, recipient: drop.address, now: now, wallTime: wallTime,
                    outcome: .dropped, namespace: self.state.scope.name)
                if position == 0 && targets.isEmpty { record.id = firstId }
                record.reason =
                    "mailUnregisteredSenders is drop, so accepted and never delivered: " + drop.refusal.reason
                record.smtpReply = reply.description
                record.userKey = facts[drop.address]?.userKey
                record.teamId = facts[drop.address]?.teamId
                record.hasRaw = bodyKept
                try await Self.keep(
                    record, message: bodyKept ? MailMessage(data: Data(), body: firstId) : nil,
                    transaction: transaction)
                records.append(record)
            }
            for (position, target) in targets.enumerated() {
                var record = Self.record(
                    envelope, headers: headers, recipient: target.address, now: now, wallTime: wallTime,
                    outcome: .relayed, namespace: self.state.scope.name)
                // The reply's "queued as" names the first recipient's entry.
                if position == 0 { record.id = firstId }
                record.userKey = target.userKey
                record.teamId = target.teamId
                record.deliveredTo = target.deliverTo
                record.rewrittenFrom = RelayRewriting.rewrittenFrom(headers, relayAddress: target.address)
                let message = RelayRewriting.deliveredRecipe(
                    envelope.message, headers: headers, target: target, heloName: envelope.heloName, id: firstId,
                    bodyId: firstId, at: now, overTLS: envelope.overTLS)
                record.size = message.assembledCount(receivedCount: envelope.message.count)
                record.hasRaw = bodyKept
                record.smtpReply = reply.description
                try await Self.keep(record, message: bodyKept ? message : nil, transaction: transaction)
                try await Self.count(target.address, now: now, transaction: transaction)
                delivered.append((record, message))
            }
            return DeliveryDecision(
                reply: reply, records: records + delivered.map(\.record), delivered: delivered, now: now)
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

    /// Whether `refusal` is turned into a silent drop by the settings.
    static func drops(_ refusal: RelayRefusal, _ settings: MockSettings) -> Bool {
        refusal.outcome == .unauthorizedSender && settings.mailUnregisteredSenders == .drop
    }

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

    /// Keeps a received message once, dropping the oldest ones (counted in the usage) to stay
    /// within `maxBytes` and `MailboxLimits.rawMessages`; `false` when it is larger than
    /// `maxBytes` on its own (then it is counted as dropped and not kept).
    private static func keepBody(_ message: [UInt8], id: String, maxBytes: Int, transaction: any StateTransaction)
        async throws -> Bool
    {
        var usage = try await transaction.get(Spaces.mailUsage, MailboxUsage.key) ?? MailboxUsage()
        let fits = message.count <= maxBytes
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
        return fits
    }

    private static func record(
        _ envelope: SMTPEnvelope, headers: MessageHeaders, recipient: String, now: Date, wallTime: Date,
        outcome: MailOutcome, namespace: String
    ) -> MailRecord {
        MailRecord(
            id: MailRecord.newId(at: wallTime), at: now, wallTime: wallTime, direction: .inbound, outcome: outcome,
            smtpReply: "", envelopeSender: envelope.sender, recipient: recipient.lowercased(),
            from: headers.first("From"), subject: headers.subject, messageId: headers.first("Message-ID"),
            size: envelope.message.count, overTLS: envelope.overTLS, hasRaw: false, namespace: namespace)
    }
}

extension MockState {
    /// The relay's steps on the state.
    var mail: MailSteps { MailSteps(state: self) }
}
