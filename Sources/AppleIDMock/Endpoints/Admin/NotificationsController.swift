import Foundation
import Hummingbird

/// The server-to-server notifications the lifecycle produced: `GET /__admin/notifications[/<id>]`,
/// `POST /__admin/notifications/<id>/redeliver`.
struct NotificationsController: Sendable {
    let state: MockState

    func addRoutes(to group: RouterGroup<MockRequestContext>) {
        group.get(RouterPath(AdminPath.notifications)) { _, _ in
            // As recorded: a list of many notifications is not signed anew.
            let views = try await self.state.notifications().map { self.view($0, signing: nil) }
            return Responses.adminJSON(["notifications": views])
        }
        group.get(RouterPath(AdminPath.notification)) { _, context in
            let id = context.parameters.get("id") ?? ""
            guard let record = try await self.state.notification(id) else {
                throw ControlRefusal.notFound("no notification \"\(id)\"")
            }
            return Responses.adminJSON(self.view(record, signing: try await context.active(in: self.state)))
        }
        group.post(RouterPath(AdminPath.redeliver)) { _, context in
            let record = try await self.state.redeliver(context.parameters.get("id") ?? "")
            return Responses.adminJSON(self.view(record, signing: try await self.state.current()))
        }
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
