import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Native sign-in without a device: `POST /__admin/native/authorize` returns what an iOS app's
/// `ASAuthorizationAppleIDCredential` holds; `GET /__admin/native/credential-state` answers as
/// `getCredentialState(forUserID:)` does.
struct NativeController: Sendable {

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.post(RouterPath(AdminPath.nativeAuthorize)) { request, context in
            try await self.authorize(context.world, request)
        }
        group.get(RouterPath(AdminPath.credentialState)) { request, context in
            try await self.credentialState(context.world, request)
        }
    }

    private func authorize(_ state: MockState, _ request: Request) async throws -> Response {
        var reader = JSONReader()
        let body = try await AdminBody.json(request)
        let parsed = NativeAuthorizationRequest.read(body, reader: &reader)
        try reader.refuseBodyIfInvalid()
        guard let parsed else {
            throw ControlRefusal.invalidBody("clientId and user (or userId) are required")
        }
        let active = try await state.current()
        let world = active.world
        let client = try Self.appClient(parsed.clientId, in: world)
        let now = active.now
        let user = try Self.user(parsed, client: client, world: world, now: now)
        let outcome = try await CodeIssuance.issue(
            .init(
                userKey: user.key, client: client, scopes: parsed.scopes,
                hidesEmail: parsed.hideEmail ?? user.hideEmail,
                redirectUri: nil, nonce: parsed.nonce),
            state: state, active: active)
        let token = try outcome.identityToken(
            client: client, nonce: parsed.nonce, source: .native(code: outcome.code), active: active)
        let identity = outcome.world.emailIdentity(of: user, consent: outcome.consent, teamId: client.teamId)
        let wantsName = outcome.isFirst && outcome.consent.scopes.contains("name")
        let credential = NativeCredential(
            user: token.claims.sub, state: parsed.state,
            authorizedScopes: outcome.isFirst ? outcome.consent.scopes : [],
            authorizationCode: outcome.code,
            identityToken: token.jws,
            email: outcome.isFirst ? identity?.email : nil,
            fullName: wantsName ? .init(givenName: user.name?.firstName, familyName: user.name?.lastName) : nil,
            realUserStatus: user.realUserStatus)
        return Responses.adminJSON(credential)
    }

    private func credentialState(_ state: MockState, _ request: Request) async throws -> Response {
        /// The JSON answer.
        struct Answer: Encodable {
            var clientId: String
            var userId: String
            var state: CredentialState
        }
        let query = request.uri.queryParameters
        guard let clientId = query["clientId"].map(String.init), let userId = query["userId"].map(String.init) else {
            throw ControlRefusal.invalidQuery("clientId&userId", "pass clientId (a bundle id) and userId (a sub)")
        }
        let active = try await state.current()
        let client = try Self.appClient(clientId, in: active.world)
        let now = active.now
        let credential = try await state.withSession(active) { session, world in
            if let user = world.user(withSubject: userId, teamId: client.teamId) {
                return try await session.credentialState(userKey: user.key, appGroupId: client.appGroupId)
            }
            // The old team's id of a migrated user, during the migration window.
            if let transfer = world.openTransfer(of: client.appGroupId, at: now),
                let user = world.user(withSubject: userId, teamId: transfer.fromTeam),
                try await session.credentialState(userKey: user.key, appGroupId: client.appGroupId) == .authorized
            {
                return CredentialState.transferred
            }
            return CredentialState.notFound
        }
        return Responses.adminJSON(Answer(clientId: clientId, userId: userId, state: credential))
    }

    /// The user named by `userId` (the current id, or during a migration window the old team's) or by `user`.
    static func user(_ request: NativeAuthorizationRequest, client: World.Client, world: World, now: Date)
        throws(ControlRefusal) -> User
    {
        if let userId = request.userId {
            let teams =
                [client.teamId] + (world.openTransfer(of: client.appGroupId, at: now).map { [$0.fromTeam] } ?? [])
            let match = teams.lazy.compactMap { world.user(withSubject: userId, teamId: $0) }.first
            guard let match else {
                throw ControlRefusal.notFound("no user with id \(userId) for \(client.id)")
            }
            return match
        }
        guard let hint = request.user, let user = world.user(matching: hint) else {
            throw ControlRefusal.notFound(
                "no user matching \"\(request.user ?? "")\" in scenario \"\(world.scenario.name)\"")
        }
        return user
    }

    /// The App ID `clientId`, or a refusal naming why it is not one.
    static func appClient(_ clientId: String, in world: World) throws(ControlRefusal) -> World.Client {
        guard let client = world.clients[clientId] else {
            throw ControlRefusal.notFound("no client \"\(clientId)\" in scenario \"\(world.scenario.name)\"")
        }
        guard client.kind == .app else {
            let bundle = world.appGroups[client.appGroupId]?.primaryBundleId ?? "its bundle id"
            throw ControlRefusal.notApplicable(
                "\(clientId) is a Services ID (web); native sign-in uses a bundle id such as \(bundle)")
        }
        return client
    }
}
