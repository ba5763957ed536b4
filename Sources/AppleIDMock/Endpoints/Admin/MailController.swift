import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `/__admin/mail`: the private email relay's mailbox, newest first, with filters (`user`, `team`,
/// `outcome`, `direction`, `limit`); one entry; its raw message; a reply from the user through
/// the outbound SMTP server; `DELETE` empties it. The listing also says whether SMTP is on.
struct MailController: Sendable {
    /// Where replies are journaled.
    let journal: JournalRecorder
    /// Where SMTP listens and where mail goes.
    let mail: MailRuntime

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.get(RouterPath(AdminPath.mail)) { request, context in try await self.list(context.world, request) }
        group.delete(RouterPath(AdminPath.mail)) { _, context in
            let count = try await context.world.mail.records().count
            try await context.world.mail.clear()
            return Responses.adminJSON(["cleared": count])
        }
        group.get(RouterPath(AdminPath.mailEntry)) { _, context in
            Responses.adminJSON(try await self.record(context))
        }
        group.get(RouterPath(AdminPath.mailRaw)) { _, context in try await self.raw(context) }
        group.post(RouterPath(AdminPath.mailReply)) { request, context in
            try await self.reply(request, context)
        }
    }

    /// Where SMTP listens and where mail goes, for the dashboard and the kits.
    struct Status: Encodable {
        var listening: Bool
        var port: Int?
        var forward: String?
        var outbound: String?
        var howToEnable: String?
    }

    private var status: Status {
        let port = mail.smtpPort
        return Status(
            listening: port != nil, port: port, forward: mail.configuration.forward?.description,
            outbound: mail.configuration.replyServer?.description,
            howToEnable: port == nil
                ? "start the server with --smtp-port 2525 (or APPLE_ID_MOCK_SMTP_PORT=2525; 0 picks a free port)" : nil)
    }

    private func list(_ state: MockState, _ request: Request) async throws -> Response {
        var reader = JSONReader()
        var user: String?
        var team: String?
        var outcome: String?
        var direction: MailDirection?
        var limit = 200
        var wait = WaitingRead()
        for (key, rawValue) in request.uri.queryParameters {
            let value = String(rawValue)
            switch key {
            case "user": user = value.lowercased()
            case "team": team = value
            case "outcome": outcome = value
            case "direction":
                if let found = MailDirection(rawValue: value) {
                    direction = found
                } else {
                    reader.report(.query("direction"), "\"\(value)\" is not one of: inbound, reply")
                }
            case "limit":
                if let number = Int(value), (1...MailboxLimits.records).contains(number) {
                    limit = number
                } else {
                    reader.report(.query("limit"), "expected a whole number in 1...\(MailboxLimits.records)")
                }
            default:
                if wait.read(key, value, into: &reader) { continue }
                reader.report(
                    .query(String(key)),
                    "unknown filter; filters: user, team, outcome, direction, limit, waitSeconds, minCount")
            }
        }
        try reader.refuseQueryIfInvalid()
        let filter = { (record: MailRecord) -> Bool in
            if let user,
                ![record.userKey?.lowercased(), record.recipient, record.deliveredTo?.lowercased()].contains(user)
            {
                return false
            }
            if let team, record.teamId != team { return false }
            if let outcome, record.outcome.rawValue != outcome { return false }
            if let direction, record.direction != direction { return false }
            return true
        }
        let (matching, reached) = try await wait.run(
            .mail, watch: state.store.watch, read: { try await state.mail.records().filter(filter) },
            satisfied: { $0.count >= wait.target })
        let usage = try await state.mail.usage()
        let settings = try await state.current().world.settings
        /// The answer: `matched` and `reached` when the call waited or gave `minCount`.
        struct Listing: Encodable {
            var smtp: Status
            var mailbox: Summary
            var entries: [MailRecord]
            var matched: Int?
            var reached: Bool?
        }
        let summary = Summary(
            keptMessages: usage.kept.count, keptBytes: usage.keptBytes, maxBytes: settings.mailboxMaxBytes,
            droppedMessages: usage.droppedMessages, droppedBytes: usage.droppedBytes)
        return Responses.adminJSON(
            Listing(
                smtp: status, mailbox: summary, entries: Array(matching.prefix(limit)),
                matched: wait.isAsked ? matching.count : nil, reached: wait.isAsked ? reached : nil))
    }

    /// What the mailbox holds of messages and what it dropped to stay within its bounds.
    struct Summary: Encodable {
        var keptMessages: Int
        var keptBytes: Int
        var maxBytes: Int
        var droppedMessages: Int
        var droppedBytes: Int
    }

    private func record(_ context: WorldRequestContext) async throws -> MailRecord {
        let state = context.world
        let id = context.parameters.get("id") ?? ""
        guard let record = try await state.mail.record(id) else {
            throw ControlRefusal.notFound("no mail \"\(id)\" in the mailbox")
        }
        return record
    }

    private func raw(_ context: WorldRequestContext) async throws -> Response {
        let state = context.world
        let record = try await record(context)
        guard let message = try await state.mail.message(record.id) else {
            throw ControlRefusal.notFound(
                "mail \(record.id) has no message kept (refused at RCPT TO, or dropped to keep the newest \(MailboxLimits.rawMessages) messages within mailboxMaxBytes)"
            )
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "message/rfc822", .cacheControl: "no-store",
                .contentDisposition: "inline; filename=\"\(record.id).eml\"",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: message)))
    }

    private func reply(_ request: Request, _ context: WorldRequestContext) async throws -> Response {
        let state = context.world
        let original = try await record(context)
        let body = try await AdminBody.json(request)
        var reader = JSONReader()
        var text: String?
        var subject: String?
        if let members = reader.object(body, at: .root, allowed: ["text", "subject"]) {
            if let raw = reader.required(members, "text", at: .root) {
                text = reader.string(raw, at: .root.member("text"))
                if let value = text, value.utf8.count > 100_000 {
                    reader.report(.root.member("text"), "at most 100000 bytes")
                }
            }
            if let raw = members["subject"] { subject = reader.string(raw, at: .root.member("subject")) }
        }
        try reader.refuseBodyIfInvalid()
        guard original.direction == .inbound, original.outcome == .relayed else {
            throw ControlRefusal.notApplicable(
                "mail \(original.id) was not relayed to the user (outcome \(original.outcome.rawValue)); there is nothing to reply to"
            )
        }
        guard let server = mail.configuration.replyServer else {
            throw ControlRefusal.notApplicable(
                "no outbound SMTP server: start the server with --smtp-outbound host:port (or --smtp-forward)")
        }
        let active = try await state.current()
        let user = original.userKey.flatMap { active.world.users[$0] }
        let name = [user?.name?.firstName, user?.name?.lastName].compactMap { $0 }.joined(separator: " ")
        let started = JournalStart()
        let wallTime = started.wallTime
        let id = MailRecord.newId(at: wallTime)
        let reply = ReplyComposer.compose(
            to: original, text: text ?? "", subject: subject, userName: name.isEmpty ? nil : name, id: id,
            at: active.now)
        var record = MailRecord(
            id: id, at: active.now, wallTime: wallTime, direction: .reply, outcome: .sent, smtpReply: "",
            envelopeSender: reply.sender, recipient: reply.recipient, userKey: original.userKey,
            teamId: original.teamId, from: reply.sender, subject: reply.subject, messageId: reply.messageId,
            size: reply.message.count, overTLS: false, hasRaw: true, inReplyTo: original.id,
            namespace: state.scope.name)
        // The day's limit is checked and counted in one step, just before sending.
        let reservedOn: Date
        switch try await state.mail.reserveReply(from: original.recipient) {
        case .success(let day): reservedOn = day
        case .failure(let reached):
            throw ControlRefusal.limitReached(
                "\(original.recipient) reached its daily limit of \(reached.limit) messages", limit: reached.limit)
        }
        do {
            let answer = try await SMTPClient.send(
                reply.message, from: reply.sender, to: [reply.recipient], server: server)
            record.smtpReply = answer.description
        } catch {
            record.outcome = .failed
            record.reason = "\(error)"
        }
        try await state.mail.finishReply(
            record, message: reply.message, reservedFor: original.recipient, on: reservedOn)
        journal.record(
            JournalEndpoint.smtp, in: state.scope, started: started, mockTime: active.now,
            outcome: record.outcome.journalOutcome
        ) {
            $0.method = "REPLY"
            $0.userKey = original.userKey
            $0.status = record.outcome == .sent ? 250 : nil
            $0.reason = record.reason
        }
        return Responses.adminJSON(record, status: record.outcome == .sent ? .created : .badGateway)
    }
}
