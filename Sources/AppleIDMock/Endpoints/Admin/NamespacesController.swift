import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `/__admin/namespaces`: list the namespaces, make or change one (`PUT`), read one, delete one
/// with all its state. The rules are `Namespaces`'.
struct NamespacesController: Sendable {
    let namespaces: Namespaces

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.get(RouterPath(AdminPath.namespaces)) { _, _ in try await self.list() }
        group.get(RouterPath(AdminPath.namespace)) { _, context in try await self.read(context) }
        group.put(RouterPath(AdminPath.namespace)) { request, context in try await self.put(request, context) }
        group.delete(RouterPath(AdminPath.namespace)) { _, context in try await self.delete(context) }
    }

    /// The namespaces, the default first.
    private struct Listing: Encodable {
        var namespaces: [NamespaceView]
        /// The most namespaces besides the default.
        var limit: Int
    }

    private func list() async throws -> Response {
        let records = try await namespaces.records()
        return Responses.adminJSON(
            Listing(
                namespaces: try await views([nil] + records.map { Optional($0) }), limit: Namespaces.limit))
    }

    private func read(_ context: WorldRequestContext) async throws -> Response {
        let name = try Self.name(context)
        if name == NamespaceName.default { return Responses.adminJSON(try await views([nil])[0]) }
        guard let record = try await namespaces.record(name) else {
            throw ControlRefusal.notFound("no namespace \"\(name)\"; PUT /__admin/namespaces/\(name) makes it")
        }
        return Responses.adminJSON(try await views([record])[0])
    }

    private func put(_ request: Request, _ context: WorldRequestContext) async throws -> Response {
        let name = try Self.name(context)
        guard name != NamespaceName.default else {
            throw ControlRefusal.notApplicable(
                "the default namespace is changed by the rest of the control plane (/__admin/scenario, /__admin/settings, …)"
            )
        }
        let options = try Self.options(try await AdminBody.json(request, emptyIsObject: true))
        let (record, created) = try await namespaces.put(name, options)
        return Responses.adminJSON(try await views([record])[0], status: created ? .created : .ok)
    }

    private func delete(_ context: WorldRequestContext) async throws -> Response {
        let name = try Self.name(context)
        guard name != NamespaceName.default else {
            throw ControlRefusal.invalid([
                ScenarioError.Problem(
                    file: "request", path: "{name}",
                    reason: "the default namespace cannot be deleted (reset it instead)")
            ])
        }
        guard try await namespaces.delete(name) else { throw ControlRefusal.notFound("no namespace \"\(name)\"") }
        return Responses.adminJSON(["deleted": name])
    }

    /// The name in the path, checked.
    private static func name(_ context: WorldRequestContext) throws(ControlRefusal) -> String {
        let name = context.parameters.get("name") ?? ""
        if let problem = NamespaceName.problem(name) {
            throw .invalid([ScenarioError.Problem(file: "request", path: "{name}", reason: problem)])
        }
        return name
    }

    /// The body of a `PUT`, every field optional.
    static func options(_ body: JSONValue) throws(ControlRefusal) -> NamespaceOptions {
        var reader = JSONReader()
        var options = NamespaceOptions()
        let members =
            reader.object(body, at: .root, allowed: ["scenario", "identities", "clients", "idleTtlSeconds"]) ?? [:]
        if let raw = members["scenario"] { options.scenario = reader.string(raw, at: JSONPath.root.member("scenario")) }
        if let raw = members["identities"],
            let choice = reader.choice(
                raw, at: JSONPath.root.member("identities"), of: NamespaceIdentities.allCases.map(\.rawValue))
        {
            options.identities = NamespaceIdentities(rawValue: choice)
        }
        if let raw = members["clients"], let items = reader.array(raw, at: JSONPath.root.member("clients")) {
            let path = JSONPath.root.member("clients")
            if items.count > NamespaceOptions.maxClients {
                reader.report(path, "at most \(NamespaceOptions.maxClients) client ids; found \(items.count)")
            }
            var clients: [String] = []
            for (index, item) in items.enumerated() {
                guard let client = reader.string(item, at: path.index(index)) else { continue }
                if client.isEmpty || client.utf8.count > 255 {
                    reader.report(path.index(index), "a client_id is 1 to 255 characters")
                } else if clients.contains(client) {
                    reader.report(path.index(index), "\"\(client)\" is listed twice")
                } else {
                    clients.append(client)
                }
            }
            options.clients = clients
        }
        if let raw = members["idleTtlSeconds"] {
            options.idleTtlSeconds = reader.integer(
                raw, at: JSONPath.root.member("idleTtlSeconds"), in: 1...NamespaceOptions.maxIdleTtlSeconds)
        }
        try reader.refuseBodyIfInvalid()
        return options
    }

    /// The views of `records` (`nil`: the default namespace), with their counts read in one call.
    private func views(_ records: [NamespaceRecord?]) async throws -> [NamespaceView] {
        let scopes = records.map { $0.map { NamespaceScope(name: $0.name) } ?? .default }
        let stored = scopes.flatMap { scope in NamespaceView.countedSpaces.map { scope.storedName($0.space) } }
        let counts = try await namespaces.defaultState.base.entryCounts(stored)
        let controls = try await namespaces.controls(of: scopes)
        var views: [NamespaceView] = []
        for ((record, scope), control) in zip(zip(records, scopes), controls) {
            views.append(
                NamespaceView(
                    name: scope.name, scenario: control?.scenario ?? "", identities: control?.identities ?? .shared,
                    clients: record?.clients ?? [], idleTtlSeconds: record?.idleTtlSeconds,
                    createdAt: record?.createdAt.ISO8601Format(), lastUsedAt: record?.lastUsedAt.ISO8601Format(),
                    pathPrefix: scope.pathPrefix,
                    counts: Dictionary(
                        uniqueKeysWithValues: NamespaceView.countedSpaces.map {
                            ($0.shown, counts[scope.storedName($0.space)] ?? 0)
                        })))
        }
        return views
    }
}
