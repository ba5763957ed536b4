import Hummingbird
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `/__admin/faults`: make Apple fail on demand. `GET` lists the rules with their counts, `POST`
/// adds one, `DELETE` clears them all, `DELETE /__admin/faults/{id}` one.
struct FaultsController: Sendable {
    let logger: Logger

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.get(RouterPath(AdminPath.faults)) { _, context in try await self.list(context.world) }
        group.post(RouterPath(AdminPath.faults)) { request, context in try await self.add(context.world, request) }
        group.delete(RouterPath(AdminPath.faults)) { _, context in
            Responses.adminJSON(["cleared": try await context.world.clearFaults()])
        }
        group.delete(RouterPath(AdminPath.fault)) { _, context in
            let id = context.parameters.get("id") ?? ""
            try await context.world.deleteFault(id)
            return Responses.adminJSON(["deleted": id])
        }
    }

    private func list(_ state: MockState) async throws -> Response {
        let statuses = try await state.faultStatuses()
        return Responses.adminJSON(["faults": statuses.map(FaultView.init)])
    }

    private func add(_ state: MockState, _ request: Request) async throws -> Response {
        let rule = try await state.addFault(try await AdminBody.json(request))
        logger.info(
            "fault rule added",
            metadata: ["idp.fault": .string(rule.id), "idp.endpoint": .string(rule.endpoint.rawValue)])
        return Responses.adminJSON(
            FaultView(MockState.FaultStatus(rule: rule, counts: FaultCounts())), status: .created)
    }
}

/// A fault rule as the control plane shows it: the rule's own fields, and how often it matched
/// (`matched`), fired (`fired`) and will still fire (`remaining`, absent: no limit).
struct FaultView: Encodable {
    let status: MockState.FaultStatus

    init(_ status: MockState.FaultStatus) {
        self.status = status
    }

    /// The counts' names, beside the rule's.
    private enum CountKeys: String, CodingKey {
        case matched, fired, remaining
    }

    func encode(to encoder: any Encoder) throws {
        try status.rule.encode(to: encoder)
        var container = encoder.container(keyedBy: CountKeys.self)
        try container.encode(status.matched, forKey: .matched)
        try container.encode(status.fired, forKey: .fired)
        try container.encodeIfPresent(status.remaining, forKey: .remaining)
    }
}
