import AppleIDMock

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MockAppleID {
    /// One line of the private email relay's mailbox (`GET /__admin/mail`): a message to a relay
    /// address, relayed or refused with the reason, or a reply the user sent.
    public struct Mail: Sendable, Decodable {
        public var id: String
        /// When, on the mock's clock.
        public var at: Date
        /// `inbound` or `reply`.
        public var direction: String
        /// `relayed`, `user_not_found`, `unauthorized_sender`, `daily_limit`, `dkim_required`, `dropped`;
        /// for replies `sent` or `failed`.
        public var outcome: String
        /// Why it was refused, in the mock's words.
        public var reason: String?
        /// The SMTP reply the sender got.
        public var smtpReply: String
        public var envelopeSender: String
        /// The relay address (inbound) or the original sender (reply).
        public var recipient: String
        public var userKey: String?
        public var teamId: String?
        /// The user's real address it was delivered to.
        public var deliveredTo: String?
        /// `From` as sent, and as the relay rewrote it for the user's replies.
        public var from: String?
        public var rewrittenFrom: String?
        public var subject: String?
        public var messageId: String?
        /// The copy sent to the forward server: `ok` or what went wrong.
        public var forward: String?
    }

    /// The port the mock's SMTP relay listens on (start it with `Options.smtpPort`), or `nil`.
    public func smtpPort() async throws -> Int? {
        struct Listing: Decodable {
            struct Status: Decodable { var port: Int? }
            var smtp: Status
        }
        return try await call(.get, AdminPath.absolute(AdminPath.mail) + "?limit=1", as: Listing.self).smtp.port
    }

    /// The mailbox, newest first, filtered by user (key, relay or real address), team and outcome.
    public func mail(user: String? = nil, team: String? = nil, outcome: String? = nil) async throws -> [Mail] {
        try await call(.get, Self.mailPath(user: user, team: team, outcome: outcome), as: MailPage.self).entries
    }

    /// Waits until the mailbox holds `count` entries matching the filters and returns them, newest
    /// first; throws `MockAppleIDError.timedOut` after `timeout` (wall clock). The wait sleeps on the
    /// mock (`minCount`, `waitSeconds`), which answers as soon as the entries are there.
    public func waitForMail(
        user: String? = nil, team: String? = nil, outcome: String? = "relayed", count: Int = 1,
        timeout: Duration = .seconds(10)
    ) async throws -> [Mail] {
        guard count > 0 else { return try await mail(user: user, team: team, outcome: outcome) }
        let deadline = ContinuousClock.now + timeout
        var page = MailPage(entries: [])
        repeat {
            let waiting = [("minCount", String(count)), ("waitSeconds", Self.waitSeconds(until: deadline) ?? "0")]
            page = try await call(
                .get, Self.mailPath(user: user, team: team, outcome: outcome, waiting), as: MailPage.self)
            if page.reached == true { return page.entries }
        } while ContinuousClock.now < deadline
        throw MockAppleIDError.timedOut(
            "\(count) mail(s) with outcome \(outcome ?? "any") for \(user ?? "any user") (found \(page.matched ?? page.entries.count))"
        )
    }

    /// An answer of `GET /__admin/mail`: the entries, and with `minCount` how many matched and whether
    /// that was enough.
    private struct MailPage: Decodable {
        var entries: [Mail]
        var matched: Int?
        var reached: Bool?
    }

    /// `GET /__admin/mail` with the filters given, and `extra` parameters.
    private static func mailPath(
        user: String?, team: String?, outcome: String?, _ extra: [(String, String)] = []
    ) -> String {
        var query: [(String, String)] = []
        if let user { query.append(("user", user)) }
        if let team { query.append(("team", team)) }
        if let outcome { query.append(("outcome", outcome)) }
        query += extra
        return AdminPath.absolute(AdminPath.mail) + (query.isEmpty ? "" : "?" + FormParameters.encode(query))
    }

    /// The message of a mailbox entry as the relay delivered it to the user.
    public func rawMail(_ id: String) async throws -> String {
        try await succeeding(.get, AdminPath.absolute(AdminPath.mailRaw, id: id)).body
    }

    /// Sends a reply as the user to a relayed message, through the forward/outbound SMTP server.
    public func reply(to id: String, text: String) async throws -> Mail {
        try await call(.post, AdminPath.absolute(AdminPath.mailReply, id: id), json: ["text": text], as: Mail.self)
    }

    /// The relay address `user` has with an app group's current team (`GET /__admin/users`).
    public func relayAddress(of user: String, appGroup: String) async throws -> String {
        struct Listing: Decodable {
            struct User: Decodable {
                struct Group: Decodable {
                    var appGroupId: String
                    var relayEmail: String
                }
                var key: String
                var appGroups: [Group]
            }
            var users: [User]
        }
        let users = try await call(.get, AdminPath.absolute(AdminPath.users), as: Listing.self).users
        guard
            let address = users.first(where: { $0.key == user })?.appGroups.first(where: { $0.appGroupId == appGroup })?
                .relayEmail
        else { throw MockAppleIDError.invalidArgument("no user \(user) with app group \(appGroup)") }
        return address
    }
}
