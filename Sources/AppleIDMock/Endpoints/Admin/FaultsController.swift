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
            "fault rule added", metadata: ["idp.fault": .string(rule.id), "idp.endpoint": .string(rule.endpoint.rawValue)])
        return Responses.adminJSON(
            FaultView(MockState.FaultStatus(rule: rule, counts: FaultCounts())), status: .created)
    }
}

/// A fault rule as the control plane shows it: the rule, and how often it matched and fired.
struct FaultView: Encodable {
    var id: String
    var endpoint: FaultRule.Endpoint
    var grantType: String?
    var clientId: String?
    var error: String?
    var errorDescription: String?
    var status: Int?
    var body: JSONValue?
    var retryAfterSeconds: Int?
    var latencyMilliseconds: Int?
    var drop: Bool
    var truncate: Bool
    var times: Int?
    var fraction: Double?
    var seed: Int?
    var createdAt: Date
    /// Matching calls so far.
    var matched: Int
    /// Calls it fired on.
    var fired: Int
    /// Calls it will still fire on (absent: no limit).
    var remaining: Int?

    init(_ status: MockState.FaultStatus) {
        let rule = status.rule
        id = rule.id
        endpoint = rule.endpoint
        grantType = rule.grantType
        clientId = rule.clientId
        error = rule.error
        errorDescription = rule.errorDescription
        self.status = rule.status
        body = rule.body
        retryAfterSeconds = rule.retryAfterSeconds
        latencyMilliseconds = rule.latencyMilliseconds
        drop = rule.drop
        truncate = rule.truncate
        times = rule.times
        fraction = rule.fraction
        seed = rule.seed
        createdAt = rule.createdAt
        matched = status.matched
        fired = status.fired
        remaining = status.remaining
    }
}
