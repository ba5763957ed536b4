import Hummingbird
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `/__admin/events`: fire an account lifecycle event now (`POST`), or list the log and the
/// scheduled events still to come (`GET`).
struct EventsController: Sendable {
    let logger: Logger

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.post(RouterPath(AdminPath.events)) { request, context in
            try await self.trigger(request, context)
        }
        group.get(RouterPath(AdminPath.events)) { _, context in try await self.events(context.world) }
    }

    private func trigger(_ request: Request, _ context: WorldRequestContext) async throws -> Response {
        let state = context.world
        var reader = JSONReader()
        let body = try await AdminBody.json(request)
        let root = JSONPath.root
        let members = reader.object(body, at: root, allowed: ["type", "user", "appGroup"]) ?? [:]
        let kind = reader.required(members, "type", at: root).flatMap {
            reader.choice($0, at: root.member("type"), of: LifecycleEvent.Kind.allCases.map(\.rawValue))
        }.flatMap(LifecycleEvent.Kind.init(rawValue:))
        let userHint = reader.required(members, "user", at: root).flatMap { reader.string($0, at: root.member("user")) }
        let groupHint = members["appGroup"].flatMap { reader.string($0, at: root.member("appGroup")) }
        try reader.refuseBodyIfInvalid()
        guard let kind, let userHint else {
            throw ControlRefusal.invalidBody("type and user are required")
        }
        let world = try await context.current().world
        guard let user = world.user(matching: userHint) else {
            throw ControlRefusal.notFound("no user matching \"\(userHint)\" in scenario \"\(world.scenario.name)\"")
        }
        var appGroupId: String?
        if let groupHint {
            guard let id = world.appGroups[groupHint]?.id ?? world.clients[groupHint]?.appGroupId else {
                throw ControlRefusal.notFound("no app group or client id \"\(groupHint)\"")
            }
            appGroupId = id
        }
        if kind.needsAppGroup && appGroupId == nil {
            throw ControlRefusal.invalidBody(
                "\(kind.rawValue) needs an app group (its id or one of its client ids)", at: "$.appGroup")
        }
        if kind == .accountDelete && appGroupId != nil {
            throw ControlRefusal.invalidBody(
                "account-delete concerns the whole account: remove appGroup", at: "$.appGroup")
        }
        let entry = try await state.applyNow(
            LifecycleEvent(kind: kind, userKey: user.key, appGroupId: appGroupId))
        logger.info(
            "lifecycle event", metadata: ["idp.type": .string(kind.rawValue), "idp.user": .string(user.key)])
        return Responses.adminJSON(entry)
    }

    private func events(_ state: MockState) async throws -> Response {
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
        let (log, upcoming) = try await state.events()
        return Responses.adminJSON(
            Listing(
                log: log,
                upcoming: upcoming.map {
                    Upcoming(
                        type: $0.event.kind.rawValue, user: $0.event.userKey, appGroupId: $0.event.appGroupId, at: $0.at
                    )
                }))
    }
}
