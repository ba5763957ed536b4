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

    private func list(_ state: MockState, _ request: Request) async throws -> Response {
        let query = try MailListQuery(request.uri.queryParameters)
        return Responses.adminJSON(try await MailListing.read(query, in: state, smtp: MailListing.Status(mail)))
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
        let asked = try MailReplyRequest(try await AdminBody.json(request))
        let sender = MailReplySender(journal: journal, server: mail.configuration.replyServer)
        let record = try await sender.send(asked, to: original, in: state)
        return Responses.adminJSON(record, status: record.outcome == .sent ? .created : .badGateway)
    }
}
