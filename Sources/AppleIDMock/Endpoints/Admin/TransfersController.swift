import Hummingbird
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// App transfers on the control plane: `POST /__admin/transfers` moves an app group to another team
/// now; `GET /__admin/transfers` lists transfers with their migration windows.
struct TransfersController: Sendable {
    let logger: Logger

    /// A transfer with its window, as shown.
    struct View: Encodable {
        var appGroupId: String
        var fromTeam: String
        var toTeam: String
        var at: Date
        var windowEndsAt: Date
        var windowOpen: Bool
    }

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.post(RouterPath(AdminPath.transfers)) { request, context in
            try await self.start(request, context)
        }
        group.get(RouterPath(AdminPath.transfers)) { _, context in try await self.list(context) }
    }

    private func start(_ request: Request, _ context: WorldRequestContext) async throws -> Response {
        let state = context.world
        var reader = JSONReader()
        let body = try await AdminBody.json(request)
        let root = JSONPath.root
        let members = reader.object(body, at: root, allowed: ["appGroup", "toTeam"]) ?? [:]
        let groupHint = reader.required(members, "appGroup", at: root).flatMap {
            reader.string($0, at: root.member("appGroup"))
        }
        let toTeam = reader.required(members, "toTeam", at: root).flatMap {
            reader.string($0, at: root.member("toTeam"))
        }
        try reader.refuseBodyIfInvalid()
        guard let groupHint, let toTeam else {
            throw ControlRefusal.invalidBody("appGroup and toTeam are required")
        }
        let world = try await context.current().world
        guard let groupId = world.appGroups[groupHint]?.id ?? world.clients[groupHint]?.appGroupId else {
            throw ControlRefusal.notFound("no app group or client id \"\(groupHint)\"")
        }
        let transfer = try await state.startTransfer(appGroupId: groupId, toTeam: toTeam)
        logger.info(
            "app transferred", metadata: ["idp.app_group": .string(groupId), "idp.to_team": .string(toTeam)])
        let active = try await state.current()
        return Responses.adminJSON(Self.view(transfer, world: active.world, now: active.now))
    }

    private func list(_ context: WorldRequestContext) async throws -> Response {
        let active = try await context.current()
        return Responses.adminJSON([
            "transfers": active.control.transfers.map { Self.view($0, world: active.world, now: active.now) }
        ])
    }

    static func view(_ transfer: AppTransfer, world: World, now: Date) -> View {
        let days = world.settings.migrationWindowDays
        return View(
            appGroupId: transfer.appGroupId, fromTeam: transfer.fromTeam, toTeam: transfer.toTeam, at: transfer.at,
            windowEndsAt: transfer.windowEnd(days: days), windowOpen: transfer.isOpen(at: now, days: days))
    }
}
