import Crypto
import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `/__admin/conformance/runs`: backend conformance runs. `POST` starts one from its config (`201`
/// with its id; each run works in a namespace of its own, driven by `ConformanceService`); `GET` on
/// a run answers its report (waiting with `waitSeconds` until it finishes), `…/junit` the same as
/// JUnit XML; `GET` on the collection lists the runs. The attacker's material the runs name is
/// served outside the control plane (`AttackerController`).
struct ConformanceController: Sendable {
    let namespaces: Namespaces
    let runs: ConformanceRuns
    let address: PublicAddress

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.post(RouterPath(AdminPath.conformanceRuns)) { request, _ in try await self.start(request) }
        group.get(RouterPath(AdminPath.conformanceRuns)) { _, _ in self.list() }
        group.get(RouterPath(AdminPath.conformanceRun)) { request, context in
            let run = try self.run(context)
            var reader = JSONReader()
            var wait = WaitingRead()
            for (key, value) in request.uri.queryParameters {
                if key != "waitSeconds" || !wait.read(key, String(value), into: &reader) {
                    reader.report(.query(String(key)), "unknown parameter; known: waitSeconds")
                }
            }
            try reader.refuseQueryIfInvalid()
            if wait.seconds > 0 {
                await run.waitUntilFinished(until: .now + .milliseconds(Int64((wait.seconds * 1000).rounded())))
            }
            return Responses.adminJSON(run.report)
        }
        group.get(RouterPath(AdminPath.conformanceJUnit)) { _, context in
            Response(
                status: .ok, headers: [.contentType: "application/xml; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: try self.run(context).report.junit)))
        }
    }

    /// The run the path names.
    private func run(_ context: WorldRequestContext) throws -> ConformanceRun {
        let id = context.parameters.get("id") ?? ""
        guard let run = runs.run(id) else { throw ControlRefusal.notFound("no conformance run \"\(id)\"") }
        return run
    }

    private func list() -> Response {
        /// One run in the listing.
        struct Row: Encodable {
            var id: String
            var state: String
            var namespace: String
            var startedAt: String
            var finishedAt: String?
            var summary: [String: Int]
        }
        let rows = runs.all.map { run in
            let report = run.report
            return Row(
                id: report.id, state: report.state, namespace: report.namespace, startedAt: report.startedAt,
                finishedAt: report.finishedAt, summary: report.summary)
        }
        return Responses.adminJSON(["runs": rows])
    }

    /// Reads the config, makes the run's namespace and checks the config against its world, then
    /// queues the run.
    private func start(_ request: Request) async throws -> Response {
        var reader = JSONReader()
        let config = ConformanceConfig.read(try await AdminBody.json(request), reader: &reader)
        try reader.refuseBodyIfInvalid()
        guard let config else { throw ControlRefusal.invalidBody("expected the run's config", at: "$") }
        guard runs.hasRoom else {
            throw ControlRefusal.limitReached(
                "\(ConformanceRuns.limit) conformance runs are under way; wait for one to finish",
                limit: ConformanceRuns.limit)
        }
        let id = Data(SymmetricKey(size: SymmetricKeySize(bitCount: 64)).withUnsafeBytes { Array($0) }).lowercaseHex
        let namespace = "conformance-\(id)"
        let state = try await namespaces.state(for: namespace)
        let checked: ConformanceConfig
        do {
            checked = try Self.check(config, in: try await state.current().world)
        } catch {
            _ = try? await namespaces.delete(namespace)
            throw error
        }
        let run = ConformanceRun(
            id: id, config: checked, namespace: namespace, baseURL: checked.mockUrl ?? address.baseURL(for: request),
            startedAt: Date())
        do {
            try runs.start(run)
        } catch {
            _ = try? await namespaces.delete(namespace)
            throw error
        }
        /// The answer.
        struct Started: Encodable {
            var id: String
            var state: String
            var namespace: String
        }
        return Responses.adminJSON(Started(id: id, state: "running", namespace: namespace), status: .created)
    }

    /// Refuses a config whose clients, user or app group the run's world does not have, naming each;
    /// answers it with the notifications path's app group filled in.
    static func check(_ config: ConformanceConfig, in world: World) throws(ControlRefusal) -> ConformanceConfig {
        var config = config
        var reader = JSONReader()
        let clients = world.clients.keys.sorted().joined(separator: ", ")
        if world.clients[config.clientId] == nil {
            reader.report(
                JSONPath.root.member("clientId"),
                "no client \"\(config.clientId)\" in scenario \"\(world.scenario.name)\"; clients: \(clients)")
        }
        for (index, id) in config.otherClientIds.enumerated() where world.clients[id] == nil {
            reader.report(
                JSONPath.root.member("otherClientIds").index(index),
                "no client \"\(id)\" in scenario \"\(world.scenario.name)\"; clients: \(clients)")
        }
        if world.users[config.user] == nil {
            reader.report(
                JSONPath.root.member("user"),
                "no user \"\(config.user)\" in scenario \"\(world.scenario.name)\"; users: \(world.users.keys.sorted().joined(separator: ", "))"
            )
        }
        if config.native != nil, case .services = world.clients[config.clientId]?.kind {
            reader.report(
                JSONPath.root.member("clientId"),
                "the native path carries tokens for an app's bundle ID; \(config.clientId) is a Services ID")
        }
        if var notifications = config.notifications {
            let path = JSONPath.root.member("notifications")
            let groupId = notifications.appGroupId ?? world.clients[config.clientId]?.appGroupId
            if let groupId, let group = world.appGroups[groupId] {
                notifications.appGroupId = group.id
            } else if let groupId {
                reader.report(
                    path.member("appGroupId"),
                    "no app group \"\(groupId)\" in scenario \"\(world.scenario.name)\"; app groups: \(world.appGroups.keys.sorted().joined(separator: ", "))"
                )
            }
            config.notifications = notifications
        }
        try reader.refuseBodyIfInvalid()
        return config
    }
}
