import Foundation
import Hummingbird

/// `/__admin/faults`: make Apple fail on demand. `GET` lists the rules with their counts, `POST`
/// adds one, `DELETE` clears them all, `DELETE /__admin/faults/{id}` one.
struct FaultsController: Sendable {
    let services: MockServices

    func addRoutes(to router: Router<MockRequestContext>) {
        let faults = router.group("__admin/faults")
        faults.get { _, _ in await AdminBody.run { try await self.list() } }
        faults.post { request, _ in await AdminBody.run { try await self.add(request) } }
        faults.delete { _, _ in
            await AdminBody.run { Responses.adminJSON(["cleared": try await self.services.state.clearFaults()]) }
        }
        faults.delete(":id") { _, context in
            await AdminBody.run {
                let id = context.parameters.get("id") ?? ""
                try await self.services.state.deleteFault(id)
                return Responses.adminJSON(["deleted": id])
            }
        }
    }

    private func list() async throws -> Response {
        let statuses = try await services.state.faultStatuses()
        return Responses.adminJSON(["faults": statuses.map(FaultView.init)])
    }

    private func add(_ request: Request) async throws -> Response {
        let rule = try await services.state.addFault(try await AdminBody.json(request))
        services.logger.info(
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
