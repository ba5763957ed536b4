/// The answer of `GET /__admin/mail`: whether SMTP is on, what the mailbox holds, and the entries
/// that match, newest first (`matched` and `reached` when the call waited or gave `minCount`).
struct MailListing: Encodable, Sendable {
    /// Where SMTP listens and where mail goes, for the dashboard and the kits.
    struct Status: Encodable, Sendable {
        var listening: Bool
        var port: Int?
        var forward: String?
        var outbound: String?
        var howToEnable: String?

        /// The status of the running relay.
        init(_ mail: MailRuntime) {
            let port = mail.smtpPort
            listening = port != nil
            self.port = port
            forward = mail.configuration.forward?.description
            outbound = mail.configuration.replyServer?.description
            howToEnable =
                port == nil
                ? "start the server with --smtp-port 2525 (or APPLE_ID_MOCK_SMTP_PORT=2525; 0 picks a free port)" : nil
        }
    }

    /// What the mailbox holds of messages and what it dropped to stay within its bounds.
    struct Summary: Encodable, Sendable {
        var keptMessages: Int
        var keptBytes: Int
        var maxBytes: Int
        var droppedMessages: Int
        var droppedBytes: Int
    }

    var smtp: Status
    var mailbox: Summary
    var entries: [MailRecord]
    var matched: Int?
    var reached: Bool?

    /// Reads the mailbox of `state` for `query`, waiting as it asks.
    static func read(_ query: MailListQuery, in state: MockState, smtp: Status) async throws -> MailListing {
        let (matching, reached) = try await query.wait.run(
            .mail, watch: state.store.watch, in: state.scope,
            checking: state, read: { try await state.mail.records().filter(query.matches) },
            satisfied: { $0.count >= query.wait.target })
        let usage = try await state.mail.usage()
        let settings = try await state.current().world.settings
        let summary = Summary(
            keptMessages: usage.kept.count, keptBytes: usage.keptBytes, maxBytes: settings.mailboxMaxBytes,
            droppedMessages: usage.droppedMessages, droppedBytes: usage.droppedBytes)
        return MailListing(
            smtp: smtp, mailbox: summary, entries: Array(matching.prefix(query.limit)),
            matched: query.wait.isAsked ? matching.count : nil, reached: query.wait.isAsked ? reached : nil)
    }
}
