import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `POST /__admin/client-secret`: a `client_secret` made with a bundled developer key.
struct ClientSecretController: Sendable {
    /// Where the bundled developer keys are.
    let keysDirectory: String

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.post(RouterPath(AdminPath.clientSecret)) { request, context in
            try await self.clientSecret(request, context)
        }
    }

    /// A `client_secret` signed with a bundled developer key, valid on the mock's clock (which may
    /// have been moved): `{"clientId": …, "teamId": … (default: the owner), "lifetimeSeconds": …}`.
    private func clientSecret(_ request: Request, _ context: WorldRequestContext) async throws -> Response {
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
        try reader.refuseBodyIfInvalid()
        guard let clientId else {
            throw ControlRefusal.invalidBody("missing required field", at: "$.clientId")
        }
        let active = try await context.current()
        do {
            let secret = try await ClientSecretFactory.make(
                clientId: clientId, world: active.world, keysDirectory: keysDirectory, now: active.now,
                lifetime: lifetime, teamId: teamId)
            return Responses.adminJSON(["clientSecret": secret])
        } catch let failure as ClientSecretFactory.Failure {
            throw ControlRefusal.notFound(failure.description)
        }
    }
}
