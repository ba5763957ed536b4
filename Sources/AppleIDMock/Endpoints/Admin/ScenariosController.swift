import Hummingbird
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `/__admin/scenario` and `/__admin/scenarios`: see the active scenario, switch to another, list
/// them, upload one.
struct ScenariosController: Sendable {
    let logger: Logger

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.get(RouterPath(AdminPath.scenario)) { _, context in try await self.scenario(context.world, context) }
        group.put(RouterPath(AdminPath.scenario)) { request, context in
            try await self.switchScenario(context.world, request)
        }
        group.get(RouterPath(AdminPath.scenarios)) { _, context in try await self.scenarios(context.world, context) }
        group.post(RouterPath(AdminPath.scenarios)) { request, context in try await self.upload(context.world, request)
        }
    }

    /// The active scenario: as the request found it, or (without `context`) read after a change.
    private func scenario(_ state: MockState, _ context: WorldRequestContext? = nil) async throws -> Response {
        let active = try await state.current(or: context?.active)
        return Responses.adminJSON(ScenarioView(world: active.world, signingKeyId: active.keys.signing.kid))
    }

    private func switchScenario(_ state: MockState, _ request: Request) async throws -> Response {
        var reader = JSONReader()
        let body = try await AdminBody.json(request)
        let name = reader.object(body, at: .root, allowed: ["name"]).flatMap { members in
            reader.required(members, "name", at: .root).flatMap { reader.string($0, at: JSONPath.root.member("name")) }
        }
        try reader.refuseBodyIfInvalid()
        guard let name else {
            throw ControlRefusal.invalidBody("missing required field", at: "$.name")
        }
        try await state.activate(name)
        logger.info("scenario switched", metadata: ["idp.scenario": .string(name)])
        return try await scenario(state)
    }

    /// The scenario names and the active one (without `context`: read after a change).
    private func scenarios(_ state: MockState, _ context: WorldRequestContext? = nil) async throws -> Response {
        /// The JSON body of this listing.
        struct Listing: Encodable {
            var active: String
            var available: [String]
        }
        return Responses.adminJSON(
            Listing(
                active: try await state.current(or: context?.active).world.scenario.name,
                available: try await state.scenarioNames()))
    }

    private func upload(_ state: MockState, _ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        let name = query["name"].map(String.init) ?? ""
        if let problem = ScenarioCatalog.nameProblem(name) {
            throw ControlRefusal.invalidQuery("name", problem)
        }
        let data = try await AdminBody.data(request)
        guard let json = String(data: data, encoding: .utf8) else {
            throw ControlRefusal.invalidBody("not UTF-8 text")
        }
        let activate = query["activate"] == "true"
        try await state.install(json: json, name: name, activate: activate)
        return activate ? try await self.scenario(state) : try await scenarios(state)
    }
}
