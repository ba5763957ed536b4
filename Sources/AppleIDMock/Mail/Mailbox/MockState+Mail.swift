import Foundation

/// The relay's steps on the state: deciding on a recipient, delivering a message, and reading,
/// annotating and clearing the mailbox. Each is one step of the store, so replicas agree.
extension MockState {
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
        try await changeControl { _, active, transaction in
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
                id: MailRecord.newId(at: wallTime), at: now, wallTime: wallTime, direction: "inbound",
                outcome: refusal.outcome, reason: refusal.reason, smtpReply: refusal.reply.description,
                envelopeSender: sender, recipient: address.lowercased(), userKey: facts?.userKey, teamId: facts?.teamId,
                overTLS: overTLS, hasRaw: false)
            try await Self.keep(record, message: nil, transaction: transaction)
            return RecipientDecision(result: result, record: record, now: now)
        }
    }

    /// What a delivery step decided: the reply, and the records written (relayed ones with the
    /// message as delivered, for forwarding).
    struct DeliveryDecision: Sendable {
        var reply: SMTPReply
        var records: [MailRecord]
        var delivered: [(record: MailRecord, message: [UInt8])]
        var now: Date
    }

    /// Decides on a message after DATA and keeps it: relayed to every recipient, or refused for all.
    func deliver(_ envelope: SMTPEnvelope, wallTime: Date) async throws -> DeliveryDecision {
        let headers = MessageHeaders(parsing: envelope.message)
        return try await changeControl { _, active, transaction in
            let now = active.now
            let world = active.world
            var targets: [RelayTarget] = []
            var refusal: RelayRefusal?
            // Unregistered senders under `mailUnregisteredSenders: drop`: accepted, never delivered.
            var dropped: [(address: String, refusal: RelayRefusal)] = []
            var facts: [String: RelayAddressFacts] = [:]
            for address in envelope.recipients {
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
            if let refusal = refusal ?? messageRefusal {
                var records: [MailRecord] = []
                for address in envelope.recipients {
                    var record = Self.record(
                        envelope, headers: headers, recipient: address, now: now, wallTime: wallTime,
                        outcome: refusal.outcome)
                    record.reason = refusal.reason
                    record.smtpReply = refusal.reply.description
                    record.userKey = facts[address]?.userKey
                    record.teamId = facts[address]?.teamId
                    record.hasRaw = true
                    try await Self.keep(record, message: envelope.message, transaction: transaction)
                    records.append(record)
                }
                return DeliveryDecision(reply: refusal.reply, records: records, delivered: [], now: now)
            }
            var delivered: [(record: MailRecord, message: [UInt8])] = []
            let firstId = MailRecord.newId(at: wallTime)
            let reply = SMTPReply(250, "2.0.0", "Ok: queued as \(firstId)")
            var records: [MailRecord] = []
            for (position, drop) in dropped.enumerated() {
                var record = Self.record(
                    envelope, headers: headers, recipient: drop.address, now: now, wallTime: wallTime,
                    outcome: "dropped")
                if position == 0 && targets.isEmpty { record.id = firstId }
                record.reason =
                    "mailUnregisteredSenders is drop, so accepted and never delivered: " + drop.refusal.reason
                record.smtpReply = reply.description
                record.userKey = facts[drop.address]?.userKey
                record.teamId = facts[drop.address]?.teamId
                record.hasRaw = true
                try await Self.keep(record, message: envelope.message, transaction: transaction)
                records.append(record)
            }
            for (position, target) in targets.enumerated() {
                var record = Self.record(
                    envelope, headers: headers, recipient: target.address, now: now, wallTime: wallTime,
                    outcome: "relayed")
                // The reply's "queued as" names the first recipient's entry.
                if position == 0 { record.id = firstId }
                record.userKey = target.userKey
                record.teamId = target.teamId
                record.deliveredTo = target.deliverTo
                record.rewrittenFrom = RelayRewriting.rewrittenFrom(headers, relayAddress: target.address)
                record.hasRaw = true
                let message = RelayRewriting.delivered(
                    envelope.message, headers: headers, target: target, heloName: envelope.heloName, id: firstId,
                    at: now, overTLS: envelope.overTLS)
                record.size = message.count
                record.smtpReply = reply.description
                try await Self.keep(record, message: message, transaction: transaction)
                try await Self.count(target.address, now: now, transaction: transaction)
                delivered.append((record, message))
            }
            return DeliveryDecision(
                reply: reply, records: records + delivered.map(\.record), delivered: delivered, now: now)
        }
    }

    // MARK: - The mailbox

    /// The mailbox, newest first.
    func mailRecords() async throws -> [MailRecord] {
        try await store.transaction { try await $0.list(Spaces.mail).map(\.value) }.reversed()
    }

    /// One record.
    func mailRecord(_ id: String) async throws -> MailRecord? {
        try await store.transaction { try await $0.get(Spaces.mail, id) }
    }

    /// The raw message of a record, if still kept.
    func mailMessage(_ id: String) async throws -> MailMessage? {
        try await store.transaction { try await $0.get(Spaces.mailRaw, id) }
    }

    /// Changes a record in one step (its forwarding outcome, say); `false` when it is gone.
    @discardableResult
    func updateMail(_ id: String, _ change: @escaping @Sendable (inout MailRecord) -> Void) async throws -> Bool {
        try await store.transaction { transaction in
            guard var record = try await transaction.get(Spaces.mail, id) else { return false }
            change(&record)
            try await transaction.put(Spaces.mail, id, record)
            return true
        }
    }

    /// Keeps a record written outside an SMTP session (a reply from the user), counting it against
    /// the relay address's day when it was sent.
    func keepMail(_ record: MailRecord, message: [UInt8]?, countFor address: String?) async throws {
        try await changeControl { _, active, transaction in
            try await Self.keep(record, message: message, transaction: transaction)
            if let address { try await Self.count(address, now: active.now, transaction: transaction) }
        }
    }

    /// Messages counted today for a relay address and the day's limit.
    func mailQuota(_ address: String) async throws -> (sent: Int, limit: Int) {
        try await changeControl { _, active, transaction in
            let sent = try await transaction.get(Spaces.mailQuota, Self.quotaKey(address, now: active.now))?.count ?? 0
            return (sent, active.world.settings.mailDailyLimit)
        }
    }

    /// Empties the mailbox and the day's counts.
    func clearMail() async throws {
        try await store.transaction { try await $0.clear(Spaces.mailSpaces.map(\.name)) }
    }

    // MARK: - Helpers

    /// Whether `refusal` is turned into a silent drop by the settings.
    static func drops(_ refusal: RelayRefusal, _ settings: MockSettings) -> Bool {
        refusal.outcome == "unauthorized_sender" && settings.mailUnregisteredSenders == .drop
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

    private static func count(_ address: String, now: Date, transaction: any StateTransaction) async throws {
        let key = quotaKey(address, now: now)
        let current = try await transaction.get(Spaces.mailQuota, key)?.count ?? 0
        // Swept two days on: by then the day is over.
        let expires = Date(timeIntervalSince1970: ((now.timeIntervalSince1970 / 86_400).rounded(.down) + 2) * 86_400)
        try await transaction.put(
            Spaces.mailQuota, key, MailCount(count: current + 1), index: EntryIndex(expiresAt: expires))
    }

    private static func keep(_ record: MailRecord, message: [UInt8]?, transaction: any StateTransaction)
        async throws
    {
        try await transaction.put(Spaces.mail, record.id, record)
        try await transaction.prune(Spaces.mail, keep: MailboxLimits.records)
        if let message {
            try await transaction.put(Spaces.mailRaw, record.id, MailMessage(data: Data(message)))
            try await transaction.prune(Spaces.mailRaw, keep: MailboxLimits.rawMessages)
        }
    }

    private static func record(
        _ envelope: SMTPEnvelope, headers: MessageHeaders, recipient: String, now: Date, wallTime: Date,
        outcome: String
    ) -> MailRecord {
        MailRecord(
            id: MailRecord.newId(at: wallTime), at: now, wallTime: wallTime, direction: "inbound", outcome: outcome,
            smtpReply: "", envelopeSender: envelope.sender, recipient: recipient.lowercased(),
            from: headers.first("From"), subject: headers.subject, messageId: headers.first("Message-ID"),
            size: envelope.message.count, overTLS: envelope.overTLS, hasRaw: false)
    }
}
