import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Tokens and notifications made to order: `POST /__admin/mint/id-token` (valid, with claims set or
/// removed, or with one defect), `POST /__admin/mint/notification` (posted to an app group's URL or
/// a given one, with one defect), and `POST /__admin/notifications/conformance` (every defect and a
/// valid one, as a table of what the receiver answered).
struct MintController: Sendable {
    /// Where made-to-order notifications are journaled.
    let journal: JournalRecorder

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.post(RouterPath(AdminPath.mintIdToken)) { request, context in
            try await self.idToken(context.world, request)
        }
        group.post(RouterPath(AdminPath.mintNotification)) { request, context in
            try await self.notification(context.world, request)
        }
        group.post(RouterPath(AdminPath.conformance)) { request, context in
            try await self.conformance(context.world, request)
        }
    }

    // MARK: - Identity tokens

    private func idToken(_ state: MockState, _ request: Request) async throws -> Response {
        let body = try await AdminBody.json(request)
        var reader = JSONReader()
        let order = Self.order(body, reader: &reader)
        try reader.refuseBodyIfInvalid()
        guard let order else { throw ControlRefusal.invalidBody("not a mint order") }
        let active = try await state.current()
        let consent = try await state.withSession(active) { session, world in
            guard let client = world.clients[order.clientId] else { return nil as Consent? }
            return try await session.consent(userKey: order.userKey, appGroupId: client.appGroupId)
        }
        let minted = try IdentityTokenMint.mint(
            order, world: active.world, keys: active.keys, consent: consent, now: active.now)
        return Responses.adminJSON(minted)
    }

    /// The order in a `POST /__admin/mint/id-token` body.
    static func order(_ body: JSONValue, reader: inout JSONReader) -> IdentityTokenOrder? {
        let root = JSONPath.root
        let fields: Set<String> = ["user", "clientId", "flow", "nonce", "scopes", "set", "remove", "defect"]
        guard let members = reader.object(body, at: root, allowed: fields) else { return nil }
        let user = reader.required(members, "user", at: root).flatMap { reader.string($0, at: root.member("user")) }
        let clientId = reader.required(members, "clientId", at: root).flatMap {
            reader.string($0, at: root.member("clientId"))
        }
        guard let user, let clientId else { return nil }
        var order = IdentityTokenOrder(userKey: user, clientId: clientId)
        if let raw = members["flow"],
            let flow = reader.choice(raw, at: root.member("flow"), of: IdentityTokenOrder.Flow.allCases.map(\.rawValue))
        {
            order.flow = IdentityTokenOrder.Flow(rawValue: flow) ?? .web
        }
        order.nonce = members["nonce"].flatMap { reader.string($0, at: root.member("nonce")) }
        if let raw = members["scopes"], let scopes = reader.array(raw, at: root.member("scopes")) {
            order.scopes = scopes.enumerated().compactMap { index, value in
                reader.choice(value, at: root.member("scopes").index(index), of: ["name", "email"])
            }
        }
        if let raw = members["set"], case .object(let claims) = raw {
            order.set = claims
        } else if members["set"] != nil {
            reader.report(root.member("set"), "expected an object of claims to set")
        }
        if let raw = members["remove"], let names = reader.array(raw, at: root.member("remove")) {
            order.remove = names.enumerated().compactMap { index, value in
                reader.string(value, at: root.member("remove").index(index))
            }
        }
        if let raw = members["defect"],
            let defect = reader.choice(
                raw, at: root.member("defect"), of: IdentityTokenOrder.Defect.allCases.map(\.rawValue))
        {
            order.defect = IdentityTokenOrder.Defect(rawValue: defect)
        }
        return order
    }

    // MARK: - Notifications

    /// Where and what to send.
    private struct NotificationOrder {
        var appGroupId: String
        var userKey: String
        var kind: LifecycleEvent.Kind
        var url: String
        var defect: NotificationForgery.Defect?
    }

    /// One row of the conformance table.
    private struct Verdict: Encodable {
        /// The defect sent (`none`: a valid notification).
        var defect: String
        var status: Int?
        var outcome: DeliveryOutcome
        /// `ok`; `finding` (a forged notification was accepted); `valid_rejected`; `no_answer`.
        var verdict: String
    }

    private func notification(_ state: MockState, _ request: Request) async throws -> Response {
        let (order, active) = try await notificationOrder(state, request, allowDefect: true)
        let result = try await send(state, order, active: active)
        /// The answer.
        struct Sent: Encodable {
            var url: String
            var notification: MintedToken
            var status: Int?
            var outcome: DeliveryOutcome
            var verdict: String
        }
        return Responses.adminJSON(
            Sent(
                url: order.url, notification: result.minted, status: result.row.status, outcome: result.row.outcome,
                verdict: result.row.verdict))
    }

    private func conformance(_ state: MockState, _ request: Request) async throws -> Response {
        let (order, active) = try await notificationOrder(state, request, allowDefect: false)
        var rows: [Verdict] = []
        // Forgeries first, the valid notification last: a receiver that acts on it (a revoked
        // consent) has then seen every forgery in the same state.
        for defect in NotificationForgery.Defect.allCases.map(Optional.some) + [nil] {
            var attempt = order
            attempt.defect = defect
            rows.append(try await send(state, attempt, active: active).row)
        }
        /// The answer.
        struct Table: Encodable {
            var url: String
            var type: String
            var results: [Verdict]
            /// Forged notifications the receiver accepted.
            var findings: Int
            /// No finding, and the valid notification accepted.
            var passed: Bool
        }
        let findings = rows.filter { $0.verdict == "finding" }.count
        return Responses.adminJSON(
            Table(
                url: order.url, type: order.kind.notificationType(active.world.settings), results: rows,
                findings: findings, passed: rows.allSatisfy { $0.verdict == "ok" }))
    }

    /// Makes, posts and journals one notification.
    private func send(_ state: MockState, _ order: NotificationOrder, active: ActiveScenario) async throws -> (
        minted: MintedToken, row: Verdict
    ) {
        let minted = try NotificationForgery.make(
            kind: order.kind, userKey: order.userKey, appGroupId: order.appGroupId, defect: order.defect,
            world: active.world, signedWith: active.keys.signing, now: active.now)
        let started = JournalStart()
        let answer = await NotificationProbe.post(
            minted.token, to: order.url, timeoutMilliseconds: active.world.settings.notificationTimeoutMilliseconds)
        let accepted = answer.status.map { (200..<300).contains($0) } ?? false
        let verdict =
            answer.status == nil
            ? "no_answer" : order.defect == nil ? (accepted ? "ok" : "valid_rejected") : (accepted ? "finding" : "ok")
        var audience: String?
        if case .object(let claims) = minted.claims, case .string(let aud) = claims["aud"] { audience = aud }
        journal.record(
            JournalEndpoint.notifications, in: state.scope, started: started, mockTime: active.now,
            outcome: JournalOutcome(notificationStatus: answer.status, dropped: false),
            latencyMilliseconds: answer.milliseconds
        ) {
            $0.clientId = audience
            $0.userKey = order.userKey
            $0.sub = active.world.users[order.userKey].flatMap { user in
                active.world.appGroups[order.appGroupId].map { active.world.subject(of: user, teamId: $0.teamId) }
            }
            $0.status = answer.status
            $0.reason =
                order.defect.map { "made to order with defect \($0.rawValue): \(answer.outcome)" }
                ?? "made to order: \(answer.outcome)"
            $0.notificationType = order.kind.notificationType(active.world.settings)
            $0.url = order.url
        }
        return (
            minted,
            Verdict(
                defect: order.defect?.rawValue ?? "none", status: answer.status, outcome: answer.outcome,
                verdict: verdict)
        )
    }

    /// Reads `{"appGroupId", "user", "type", "url", "defect"}`: the user defaults to the scenario's
    /// first, the type to `consent-revoked`, the URL to the app group's notification URL.
    private func notificationOrder(_ state: MockState, _ request: Request, allowDefect: Bool) async throws -> (
        NotificationOrder, ActiveScenario
    ) {
        let body = try await AdminBody.json(request)
        let root = JSONPath.root
        var reader = JSONReader()
        let fields: Set<String> =
            allowDefect ? ["appGroupId", "user", "type", "url", "defect"] : ["appGroupId", "user", "type", "url"]
        let members = reader.object(body, at: root, allowed: fields) ?? [:]
        let groupId = reader.required(members, "appGroupId", at: root).flatMap {
            reader.string($0, at: root.member("appGroupId"))
        }
        let user = members["user"].flatMap { reader.string($0, at: root.member("user")) }
        let kind = members["type"].flatMap {
            reader.choice($0, at: root.member("type"), of: LifecycleEvent.Kind.allCases.map(\.rawValue))
        }.flatMap(LifecycleEvent.Kind.init(rawValue:))
        let url = members["url"].flatMap { reader.string($0, at: root.member("url")) }
        if let url, let problem = HTTPURLCheck.problem(url) {
            reader.report(root.member("url"), problem)
        }
        let defect = members["defect"].flatMap {
            reader.choice($0, at: root.member("defect"), of: NotificationForgery.Defect.allCases.map(\.rawValue))
        }.flatMap(NotificationForgery.Defect.init(rawValue:))
        try reader.refuseBodyIfInvalid()
        let active = try await state.current()
        let world = active.world
        guard let groupId, let group = world.appGroups[groupId] else {
            throw ControlRefusal.notFound("no app group \"\(groupId ?? "")\" in scenario \"\(world.scenario.name)\"")
        }
        guard let userKey = user ?? world.users.keys.sorted().first else {
            throw ControlRefusal.notFound("the scenario has no users")
        }
        guard let target = url ?? group.notificationUrl else {
            throw ControlRefusal.notApplicable("app group \(groupId) registers no notificationUrl; send url")
        }
        return (
            NotificationOrder(
                appGroupId: groupId, userKey: userKey, kind: kind ?? .consentRevoked, url: target, defect: defect),
            active
        )
    }

}
