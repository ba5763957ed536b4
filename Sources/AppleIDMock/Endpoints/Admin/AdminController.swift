import Foundation
import Hummingbird

/// The control plane under `/__admin/`: inspect and switch scenarios, change settings, read and move
/// the clock, list consents and reset state. Not part of Apple's surface.
struct AdminController: Sendable {
    let services: MockServices

    func addRoutes(to router: Router<MockRequestContext>) {
        let admin = router.group("__admin")
        admin.get("scenario") { _, context in await self.run { try await self.scenario(context) } }
        admin.put("scenario") { request, _ in await self.run { try await self.switchScenario(request) } }
        admin.get("scenarios") { _, context in await self.run { try await self.scenarios(context) } }
        admin.post("scenarios") { request, _ in await self.run { try await self.upload(request) } }
        admin.get("settings") { _, context in await self.run { try await self.runtimeSettings(context) } }
        admin.patch("settings") { request, _ in await self.run { try await self.patchSettings(request) } }
        admin.get("clock") { _, context in await self.run { try await self.clock(context) } }
        admin.post("clock") { request, _ in await self.run { try await self.moveClock(request) } }
        admin.get("consents") { _, context in await self.run { try await self.consents(context) } }
        admin.post("client-secret") { request, context in
            await self.run { try await self.clientSecret(request, context) }
        }
        admin.post("reset") { _, _ in
            await self.run {
                try await self.services.state.reset()
                return Responses.adminJSON(["reset": true])
            }
        }
    }

    private func run(_ body: () async throws -> Response) async -> Response {
        await AdminBody.run(body)
    }

    // MARK: - Scenarios

    /// The active scenario: as the request found it, or (without `context`) read after a change.
    private func scenario(_ context: MockRequestContext? = nil) async throws -> Response {
        let active = try await services.active(context)
        return Responses.adminJSON(ScenarioView(world: active.world, signingKeyId: active.keys.signing.kid))
    }

    private func switchScenario(_ request: Request) async throws -> Response {
        var reader = JSONReader()
        let body = try await AdminBody.json(request)
        let name = reader.object(body, at: .root, allowed: ["name"]).flatMap { members in
            reader.required(members, "name", at: .root).flatMap { reader.string($0, at: JSONPath.root.member("name")) }
        }
        try AdminBody.check(reader)
        guard let name else {
            throw ScenarioError(file: "request body", path: "$.name", reason: "missing required field")
        }
        try await services.state.activate(name)
        services.logger.info("scenario switched", metadata: ["idp.scenario": .string(name)])
        return try await scenario()
    }

    /// The scenario names and the active one (without `context`: read after a change).
    private func scenarios(_ context: MockRequestContext? = nil) async throws -> Response {
        /// The JSON body of this listing.
        struct Listing: Encodable {
            var active: String
            var available: [String]
        }
        let state = services.state
        return Responses.adminJSON(
            Listing(
                active: try await services.active(context).world.scenario.name,
                available: try await state.scenarioNames()))
    }

    private func upload(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        let name = query["name"].map(String.init) ?? ""
        if let problem = ScenarioCatalog.nameProblem(name) {
            throw ScenarioError(file: "request", path: "?name", reason: problem)
        }
        let data = try await AdminBody.data(request)
        guard let json = String(data: data, encoding: .utf8) else {
            throw ScenarioError(file: "request body", reason: "not UTF-8 text")
        }
        let activate = query["activate"] == "true"
        try await services.state.install(json: json, name: name, activate: activate)
        return activate ? try await self.scenario() : try await scenarios()
    }

    // MARK: - Settings

    private func runtimeSettings(_ context: MockRequestContext) async throws -> Response {
        Responses.adminJSON(try await services.active(context).world.settings)
    }

    private func patchSettings(_ request: Request) async throws -> Response {
        Responses.adminJSON(try await services.state.patchSettings(try await AdminBody.json(request)))
    }

    // MARK: - Clock

    /// The mock's time as shown.
    private struct ClockView: Encodable {
        var now: Int
        var iso8601: String
        var offsetSeconds: Double
        /// Whether the clock stands still.
        var frozen: Bool
    }

    /// The mock's clock (without `context`: read after a change).
    private func clock(_ context: MockRequestContext? = nil) async throws -> Response {
        let active = try await services.active(context)
        let now = active.now
        return Responses.adminJSON(
            ClockView(
                now: Int(now.timeIntervalSince1970), iso8601: now.ISO8601Format(),
                offsetSeconds: active.control.clockOffsetSeconds, frozen: active.control.frozenAt != nil))
    }

    private func moveClock(_ request: Request) async throws -> Response {
        var reader = JSONReader()
        var change: MockState.ClockChange?
        let body = try await AdminBody.json(request)
        let members = reader.object(body, at: .root, allowed: ["advanceSeconds", "now", "reset", "freeze"]) ?? [:]
        if members.count != 1 {
            reader.report(
                .root,
                "send exactly one of advanceSeconds, now (epoch seconds or ISO 8601), reset: true, or freeze: true/false"
            )
        }
        if let raw = members["freeze"], let flag = reader.bool(raw, at: JSONPath.root.member("freeze")) {
            change = .freeze(flag)
        }
        if let raw = members["advanceSeconds"],
            let seconds = reader.integer(
                raw, at: JSONPath.root.member("advanceSeconds"), in: -31_536_000_00...31_536_000_00)
        {
            change = .advance(seconds: Double(seconds))
        }
        if let raw = members["now"], let date = reader.date(raw, at: JSONPath.root.member("now")) {
            change = .set(date)
        }
        if let raw = members["reset"], let flag = reader.bool(raw, at: JSONPath.root.member("reset")) {
            if flag {
                change = .reset
            } else {
                reader.report(JSONPath.root.member("reset"), "only reset: true is meaningful")
            }
        }
        try AdminBody.check(reader)
        if let change, try await !services.state.moveClock(change) {
            let field = members.keys.first ?? "now"
            throw ScenarioError(
                file: "request body", path: JSONPath.root.member(field).description,
                reason: "the clock stays within 1970-01-01 and 9999-12-31")
        }
        return try await clock()
    }

    // MARK: - Client secrets

    /// A `client_secret` signed with a bundled developer key, valid on the mock's clock (which may
    /// have been moved): `{"clientId": …, "teamId": … (default: the owner), "lifetimeSeconds": …}`.
    private func clientSecret(_ request: Request, _ context: MockRequestContext) async throws -> Response {
        var reader = JSONReader()
        let root = JSONPath.root
        let members =
            reader.object(
                try await AdminBody.json(request), at: root, allowed: ["clientId", "teamId", "lifetimeSeconds"]) ?? [:]
        let clientId = reader.required(members, "clientId", at: root).flatMap {
            reader.string($0, at: root.member("clientId"))
        }
        let teamId = members["teamId"].flatMap { reader.string($0, at: root.member("teamId")) }
        let lifetime =
            members["lifetimeSeconds"].flatMap {
                reader.integer($0, at: root.member("lifetimeSeconds"), in: 1...15_777_000)
            }
            ?? 3_600
        try AdminBody.check(reader)
        guard let clientId else {
            throw ScenarioError(file: "request body", path: "$.clientId", reason: "missing required field")
        }
        let active = try await services.active(context)
        do {
            let secret = try await ClientSecretFactory.make(
                clientId: clientId, world: active.world, keysDirectory: services.keysDirectory, now: active.now,
                lifetime: lifetime, teamId: teamId)
            return Responses.adminJSON(["clientSecret": secret])
        } catch let failure as ClientSecretFactory.Failure {
            throw LifecycleRefusal(kind: .notFound, message: failure.description)
        }
    }

    // MARK: - State

    private func consents(_ context: MockRequestContext) async throws -> Response {
        /// A consent as shown.
        struct ConsentView: Encodable {
            var userKey: String
            var appGroupId: String
            var sub: String
            var status: Consent.Status
            var scopes: [String]
            var hidesEmail: Bool
            /// Whether mail to the relay address is forwarded (Hide My Email users only).
            var relayForwarding: Bool?
            var authorizedAt: Int
            var revokedAt: Int?
        }
        let active = try await services.active(context)
        let views = try await services.state.withSession(active) { session, world in
            var views: [ConsentView] = []
            for consent in try await session.allConsents() {
                guard let user = world.users[consent.userKey], let group = world.appGroups[consent.appGroupId] else {
                    continue
                }
                let forwarding =
                    consent.grantsEmail && consent.hidesEmail
                    ? try await session.relayForwarding(userKey: consent.userKey, appGroupId: consent.appGroupId)
                    : nil
                views.append(
                    ConsentView(
                        userKey: consent.userKey, appGroupId: consent.appGroupId,
                        sub: world.subject(of: user, teamId: group.teamId), status: consent.status,
                        scopes: consent.scopes,
                        hidesEmail: consent.hidesEmail,
                        relayForwarding: forwarding,
                        authorizedAt: Int(consent.authorizedAt.timeIntervalSince1970),
                        revokedAt: consent.revokedAt.map { Int($0.timeIntervalSince1970) }))
            }
            return views
        }
        return Responses.adminJSON(["consents": views])
    }
}
