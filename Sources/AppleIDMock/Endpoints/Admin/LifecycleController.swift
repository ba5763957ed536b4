import Foundation
import Hummingbird

/// Account lifecycle events and the notifications they produce: `POST`/`GET /__admin/events`,
/// `GET /__admin/notifications[/<id>]`, `POST /__admin/notifications/<id>/redeliver`.
struct LifecycleController: Sendable {
    let services: MockServices

    func addRoutes(to router: Router<MockRequestContext>) {
        let admin = router.group("__admin")
        admin.post("events") { request, context in await AdminBody.run { try await self.trigger(request, context) } }
        admin.get("events") { _, _ in await AdminBody.run { try await self.events() } }
        admin.get("notifications") { _, _ in
            await AdminBody.run {
                // As recorded: a list of many notifications is not signed anew.
                let views = try await self.services.state.notifications().map { self.view($0, signing: nil) }
                return Responses.adminJSON(["notifications": views])
            }
        }
        admin.get("notifications/:id") { _, context in
            await AdminBody.run {
                let id = context.parameters.get("id") ?? ""
                guard let record = try await self.services.state.notification(id) else {
                    throw LifecycleRefusal(kind: .notFound, message: "no notification \"\(id)\"")
                }
                return Responses.adminJSON(self.view(record, signing: try await self.services.active(context)))
            }
        }
        admin.post("notifications/:id/redeliver") { _, context in
            await AdminBody.run {
                let record = try await self.services.state.redeliver(context.parameters.get("id") ?? "")
                return Responses.adminJSON(self.view(record, signing: try await self.services.state.current()))
            }
        }
    }

    private func trigger(_ request: Request, _ context: MockRequestContext) async throws -> Response {
        var reader = JSONReader()
        let body = try await AdminBody.json(request)
        let root = JSONPath.root
        let members = reader.object(body, at: root, allowed: ["type", "user", "appGroup"]) ?? [:]
        let kind = reader.required(members, "type", at: root).flatMap {
            reader.choice($0, at: root.member("type"), of: LifecycleEvent.Kind.allCases.map(\.rawValue))
        }.flatMap(LifecycleEvent.Kind.init(rawValue:))
        let userHint = reader.required(members, "user", at: root).flatMap { reader.string($0, at: root.member("user")) }
        let groupHint = members["appGroup"].flatMap { reader.string($0, at: root.member("appGroup")) }
        try AdminBody.check(reader)
        guard let kind, let userHint else {
            throw ScenarioError(file: "request body", reason: "type and user are required")
        }
        let world = try await services.active(context).world
        guard let user = world.user(matching: userHint) else {
            throw LifecycleRefusal(
                kind: .notFound, message: "no user matching \"\(userHint)\" in scenario \"\(world.scenario.name)\"")
        }
        var appGroupId: String?
        if let groupHint {
            guard let id = world.appGroups[groupHint]?.id ?? world.clients[groupHint]?.appGroupId else {
                throw LifecycleRefusal(kind: .notFound, message: "no app group or client id \"\(groupHint)\"")
            }
            appGroupId = id
        }
        if kind.needsAppGroup && appGroupId == nil {
            throw ScenarioError(
                file: "request body", path: "$.appGroup",
                reason: "\(kind.rawValue) needs an app group (its id or one of its client ids)")
        }
        if kind == .accountDelete && appGroupId != nil {
            throw ScenarioError(
                file: "request body", path: "$.appGroup",
                reason: "account-delete concerns the whole account: remove appGroup")
        }
        let entry = try await services.state.applyNow(
            LifecycleEvent(kind: kind, userKey: user.key, appGroupId: appGroupId))
        services.logger.info(
            "lifecycle event", metadata: ["idp.type": .string(kind.rawValue), "idp.user": .string(user.key)])
        return Responses.adminJSON(entry)
    }

    private func events() async throws -> Response {
        /// A scheduled event still to come.
        struct Upcoming: Encodable {
            var type: String
            var user: String
            var appGroupId: String?
            var at: Date?
        }
        /// The JSON body of this listing.
        struct Listing: Encodable {
            var log: [EventLogEntry]
            var upcoming: [Upcoming]
        }
        let (log, upcoming) = try await services.state.events()
        return Responses.adminJSON(
            Listing(
                log: log,
                upcoming: upcoming.map {
                    Upcoming(
                        type: $0.event.kind.rawValue, user: $0.event.userKey, appGroupId: $0.event.appGroupId, at: $0.at
                    )
                }))
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
        var outcome: String
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
