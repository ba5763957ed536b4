import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The server-to-server notifications the lifecycle produced: `GET /__admin/notifications[/<id>]`
/// (the listing filtered by `state`, waiting with `waitSeconds` until `minCount` match, or until
/// the outbox is settled), `POST /__admin/notifications/<id>/redeliver`.
struct NotificationsController: Sendable {

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.get(RouterPath(AdminPath.notifications)) { request, context in
            try await self.list(context.world, request)
        }
        group.get(RouterPath(AdminPath.notification)) { _, context in
            let id = context.parameters.get("id") ?? ""
            guard let record = try await context.world.notification(id) else {
                throw ControlRefusal.notFound("no notification \"\(id)\"")
            }
            return Responses.adminJSON(
                self.view(record, signing: try await context.current()))
        }
        group.post(RouterPath(AdminPath.redeliver)) { _, context in
            let record = try await context.world.redeliver(context.parameters.get("id") ?? "")
            return Responses.adminJSON(
                self.view(record, signing: try await context.world.current()))
        }
    }

    private func list(_ state: MockState, _ request: Request) async throws -> Response {
        var reader = JSONReader()
        var wait = WaitingRead()
        var wanted: NotificationListState?
        for (key, rawValue) in request.uri.queryParameters {
            let value = String(rawValue)
            if key == "state" {
                if let state = NotificationListState(value) {
                    wanted = state
                } else {
                    let names = NotificationListState.all.map(\.name).joined(separator: ", ")
                    reader.report(.query("state"), "\"\(value)\" is not one of: \(names)")
                }
            } else if !wait.read(key, value, into: &reader) {
                reader.report(.query(String(key)), "unknown filter; filters: state, waitSeconds, minCount")
            }
        }
        if wanted == .settled, wait.minCount != nil {
            reader.report(.query("minCount"), "not with state=settled, which waits until nothing is pending")
        }
        try reader.refuseQueryIfInvalid()
        let settling = wanted == .settled
        let (records, reached) = try await wait.run(
            .outbox, watch: state.store.watch, in: state.scope,
            checking: state,
            read: {
                try await state.notifications().filter { wanted?.admits($0) ?? true }
            },
            satisfied: { settling ? $0.allSatisfy(\.isSettled) : $0.count >= wait.target })
        /// The answer: `reached` when the call waited or gave `minCount`; `settled` for `state=settled`.
        struct Listing: Encodable {
            var notifications: [NotificationView]
            var reached: Bool?
            var settled: Bool?
        }
        // As recorded: a list of many notifications is not signed anew.
        return Responses.adminJSON(
            Listing(
                notifications: records.map { view($0, signing: nil) },
                reached: wait.isAsked || settling ? reached : nil, settled: settling ? reached : nil))
    }

    /// A notification as the control plane shows it: the record, and the JWS as it is posted.
    struct NotificationView: Encodable {
        var id: String
        var appGroupId: String
        var url: String?
        var type: String
        var sub: String
        /// The signed JWT as last posted in `{"payload": …}`; before any attempt, one notification
        /// shown alone is signed with the key now in force (a listing leaves it out).
        var payload: String?
        var createdAt: Date
        var status: NotificationRecord.Status
        var attempts: [AttemptView]
        var nextAttemptAt: Date?
    }

    /// A delivery attempt as recorded, with its outcome in plain words (`summary`).
    struct AttemptView: Encodable {
        var startedAt: Date
        var durationMilliseconds: Int
        var httpStatus: Int?
        /// As recorded: `delivered`, `http 503`, or the HTTP client's error text.
        var outcome: DeliveryOutcome
        /// For people: "connection refused by localhost:3000", "localhost:3000 answered HTTP 503".
        var summary: String
    }

    private func view(_ record: NotificationRecord, signing active: ActiveScenario?) -> NotificationView {
        NotificationView(
            id: record.id, appGroupId: record.appGroupId, url: record.url, type: record.type, sub: record.sub,
            payload: record.payload
                ?? active.flatMap { try? TokenMinter.sign(record.claims, with: $0.keys.signing) },
            createdAt: record.createdAt, status: record.status,
            attempts: record.attempts.map {
                AttemptView(
                    startedAt: $0.startedAt, durationMilliseconds: $0.durationMilliseconds, httpStatus: $0.httpStatus,
                    outcome: $0.outcome,
                    summary: DeliveryOutcomeWords.summary($0.outcome, status: $0.httpStatus, url: record.url))
            },
            nextAttemptAt: record.nextAttemptAt)
    }
}
