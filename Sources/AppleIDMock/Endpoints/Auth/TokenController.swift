import Foundation
import Hummingbird

/// `POST /auth/token`: the `authorization_code`, `refresh_token` and (for app transfers)
/// `client_credentials` grants, checked in Apple's order
/// (grant type, client authentication, then the grant) with Apple's error bodies.
struct TokenController: Sendable {
    let services: MockServices

    func addRoutes(to router: Router<MockRequestContext>) {
        router.post("/auth/token") { request, context in await self.token(request, context) }
    }

    private func token(_ request: Request, _ context: MockRequestContext) async -> Response {
        do {
            let settings = try await services.active(context).world.settings
            let form = try await RequestReading.tokenForm(request, context: context, settings: settings)
            return try await services.rerunningAfterResets(context) { active in
                try await exchange(form, active: active)
            }
        } catch {
            return Responses.oauthError(services.refusal(error, endpoint: "token"))
        }
    }

    private func exchange(_ form: FormParameters, active: ActiveScenario) async throws -> Response {
        let grantType = try form.field("grant_type")
        guard let grantType, ["authorization_code", "refresh_token", "client_credentials"].contains(grantType) else {
            throw OAuthError("unsupported_grant_type", reason: "grant_type \"\(grantType ?? "")\" is not supported")
        }
        // Required grant parameters are checked before the client secret (reference §2.2's order).
        let required = ["authorization_code": "code", "refresh_token": "refresh_token"][grantType]
        if let required, try form.field(required) == nil { throw OAuthError.invalidRequest("\(required) is missing") }
        let (client, team) = try await services.authenticate(form, in: active)
        switch grantType {
        case "authorization_code": return try await redeemCode(form, client: client, active: active)
        case "client_credentials": return try await clientCredentials(form, client: client, team: team, active: active)
        default: return try await refresh(form, client: client, active: active)
        }
    }

    private func redeemCode(_ form: FormParameters, client: World.Client, active: ActiveScenario) async throws
        -> Response
    {
        guard let code = try form.field("code") else { throw OAuthError.invalidRequest("code is missing") }
        let redirectUri = try form.field("redirect_uri")
        let verifier = try form.field("code_verifier")
        let now = active.now
        let issued = try await services.state.withSession(active) { session, world in
            let record = try await session.redeem(
                code: code, clientId: client.id, redirectUri: redirectUri, codeVerifier: verifier,
                pkce: world.settings.pkce,
                now: now)
            guard let user = world.users[record.userKey],
                let consent = try await session.consent(userKey: record.userKey, appGroupId: record.appGroupId)
            else { throw OAuthError.codeExpired }
            let tokens = Self.newTokens(
                for: record.userKey, client: client, generation: consent.generation, authTime: record.authTime,
                nonce: record.nonce, world: world, now: now, withRefresh: true)
            try await session.store(access: tokens.access, refresh: tokens.refresh)
            let subject = IdentityTokenFactory.Subject(
                user: user, consent: consent, client: client, nonce: record.nonce, authTime: record.authTime)
            return (world: world, subject: subject, access: tokens.access, refresh: tokens.refresh)
        }
        let claims = IdentityTokenFactory(world: issued.world).claims(
            for: issued.subject, source: .codeExchange(accessToken: issued.access.token), now: now)
        Self.journal(
            issued.subject.user.key, sub: claims.sub, access: issued.access.token, refresh: issued.refresh?.token)
        let response = TokenResponse(
            accessToken: issued.access.token, expiresIn: issued.world.settings.accessTokenLifetimeSeconds,
            refreshToken: issued.refresh?.token,
            idToken: try TokenMinter.sign(claims, with: active.keys.signing))
        return Responses.appleJSON(response)
    }

    private func refresh(_ form: FormParameters, client: World.Client, active: ActiveScenario) async throws
        -> Response
    {
        guard let token = try form.field("refresh_token") else {
            throw OAuthError.invalidRequest("refresh_token is missing")
        }
        let now = active.now
        let issued = try await services.state.withSession(active) { session, world in
            let (record, consent) = try await session.refreshToken(token, clientId: client.id)
            guard let user = world.users[record.userKey] else { throw OAuthError.tokenRevoked }
            let tokens = Self.newTokens(
                for: record.userKey, client: client, generation: consent.generation, authTime: record.authTime,
                nonce: record.nonce, world: world, now: now, withRefresh: false)
            try await session.store(access: tokens.access, refresh: nil)
            let subject = IdentityTokenFactory.Subject(
                user: user, consent: consent, client: client, nonce: record.nonce, authTime: record.authTime)
            return (world: world, subject: subject, access: tokens.access)
        }
        Self.journal(
            issued.subject.user.key,
            sub: issued.world.subject(of: issued.subject.user, teamId: issued.subject.client.teamId),
            access: issued.access.token, refresh: nil)
        var idToken: String?
        if issued.world.settings.refreshReturnsIdToken {
            let claims = IdentityTokenFactory(world: issued.world).claims(
                for: issued.subject, source: .refresh(accessToken: issued.access.token), now: now)
            idToken = try TokenMinter.sign(claims, with: active.keys.signing)
        }
        return Responses.appleJSON(
            TokenResponse(
                accessToken: issued.access.token, expiresIn: issued.world.settings.accessTokenLifetimeSeconds,
                idToken: idToken))
    }

    /// A team's token for user migration: `scope=user.migration` only, for the owner's secret or,
    /// during a migration window, the previous owner's.
    private func clientCredentials(
        _ form: FormParameters, client: World.Client, team: String, active: ActiveScenario
    ) async throws -> Response {
        guard let scope = try form.field("scope") else { throw OAuthError("invalid_scope", reason: "scope is missing") }
        guard scope == "user.migration" else {
            throw OAuthError("invalid_scope", reason: "scope must be user.migration, found \(scope)")
        }
        let now = active.now
        let lifetime = try await services.state.withSession(active) { session, world in
            let lifetime = world.settings.accessTokenLifetimeSeconds
            let token = OpaqueToken.make(.accessToken)
            try await session.store(
                migrationToken: MigrationTokenRecord(
                    token: token, clientId: client.id, teamId: team, expiresAt: now.addingTimeInterval(Double(lifetime))
                ))
            return (token, lifetime)
        }
        return Responses.appleJSON(TokenResponse(accessToken: lifetime.0, expiresIn: lifetime.1))
    }

    /// Notes in the journal whom the tokens went to, and their fingerprints.
    private static func journal(_ userKey: String, sub: String, access: String, refresh: String?) {
        guard let draft = JournalDraft.current else { return }
        draft.note(userKey: userKey, sub: sub)
        draft.note(issued: "access_token", access)
        if let refresh { draft.note(issued: "refresh_token", refresh) }
    }

    private static func newTokens(
        for userKey: String, client: World.Client, generation: Int, authTime: Date, nonce: String?, world: World,
        now: Date, withRefresh: Bool
    ) -> (access: AccessTokenRecord, refresh: RefreshTokenRecord?) {
        let access = AccessTokenRecord(
            token: OpaqueToken.make(.accessToken), clientId: client.id, appGroupId: client.appGroupId, userKey: userKey,
            expiresAt: now.addingTimeInterval(Double(world.settings.accessTokenLifetimeSeconds)),
            consentGeneration: generation)
        let refresh =
            withRefresh
            ? RefreshTokenRecord(
                token: OpaqueToken.make(.refreshToken), clientId: client.id, appGroupId: client.appGroupId,
                userKey: userKey, authTime: authTime, nonce: nonce, consentGeneration: generation) : nil
        return (access, refresh)
    }
}
