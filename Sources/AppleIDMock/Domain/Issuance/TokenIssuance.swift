#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The token endpoint's grants as domain steps: a code redeemed for tokens, a refresh token for a
/// new access token (and id_token), a team's token for user migration. Each runs in one store step
/// and returns Apple's answer with what the journal notes of it.
struct TokenIssuance: Sendable {
    /// What a grant handed out.
    struct Issued: Sendable {
        /// Apple's answer.
        var response: TokenResponse
        /// Whom the tokens went to (`nil` for a team's migration token).
        var userKey: String?
        var sub: String?
        /// The tokens handed out by name (`access_token`, `refresh_token`), for their fingerprints.
        var tokens: [(name: String, value: String)]
    }

    let state: MockState

    /// `grant_type=authorization_code`: the code (bound to `client`, `redirectUri` and the PKCE
    /// challenge) for an access token, a refresh token and an id_token.
    func redeem(
        code: String, redirectUri: String?, codeVerifier: String?, client: World.Client, active: ActiveScenario
    ) async throws -> Issued {
        let now = active.now
        let issued = try await state.withSession(active) { session, world in
            let record = try await session.redeem(
                code: code, clientId: client.id, redirectUri: redirectUri, codeVerifier: codeVerifier,
                pkce: world.settings.pkce, emptyRedirectUri: world.settings.nativeEmptyRedirectUri, now: now)
            guard let user = world.users[record.userKey],
                let consent = try await session.consent(userKey: record.userKey, appGroupId: record.appGroupId)
            else { throw AppleError.codeExpired }
            let tokens = Self.newTokens(
                tag: state.scope.tag,
                for: record.userKey, client: client, generation: consent.generation, authTime: record.authTime,
                nonce: record.nonce, world: world, now: now, withRefresh: true)
            try await session.store(access: tokens.access, refresh: tokens.refresh)
            let subject = IdentityTokenFactory.Subject(
                user: user, consent: consent, client: client, nonce: record.nonce, authTime: record.authTime)
            return (world: world, subject: subject, access: tokens.access, refresh: tokens.refresh)
        }
        let claims = IdentityTokenFactory(world: issued.world).claims(
            for: issued.subject, source: .codeExchange(accessToken: issued.access.token), now: now)
        let response = TokenResponse(
            accessToken: issued.access.token, expiresIn: issued.world.settings.accessTokenLifetimeSeconds,
            refreshToken: issued.refresh?.token,
            idToken: try TokenMinter.sign(claims, with: active.keys.signing))
        return Issued(
            response: response, userKey: issued.subject.user.key, sub: claims.sub,
            tokens: [("access_token", issued.access.token)]
                + (issued.refresh.map { [("refresh_token", $0.token)] } ?? []))
    }

    /// `grant_type=refresh_token`: a new access token (and, as the settings say, an id_token).
    func refresh(token: String, client: World.Client, active: ActiveScenario) async throws -> Issued {
        let now = active.now
        let issued = try await state.withSession(active) { session, world in
            let (record, consent) = try await session.refreshToken(token, clientId: client.id)
            guard let user = world.users[record.userKey] else { throw AppleError.tokenRevoked }
            let tokens = Self.newTokens(
                tag: state.scope.tag,
                for: record.userKey, client: client, generation: consent.generation, authTime: record.authTime,
                nonce: record.nonce, world: world, now: now, withRefresh: false)
            try await session.store(access: tokens.access, refresh: nil)
            let subject = IdentityTokenFactory.Subject(
                user: user, consent: consent, client: client, nonce: record.nonce, authTime: record.authTime)
            return (world: world, subject: subject, access: tokens.access)
        }
        var idToken: String?
        if issued.world.settings.refreshReturnsIdToken {
            let claims = IdentityTokenFactory(world: issued.world).claims(
                for: issued.subject, source: .refresh(accessToken: issued.access.token), now: now)
            idToken = try TokenMinter.sign(claims, with: active.keys.signing)
        }
        return Issued(
            response: TokenResponse(
                accessToken: issued.access.token, expiresIn: issued.world.settings.accessTokenLifetimeSeconds,
                idToken: idToken),
            userKey: issued.subject.user.key,
            sub: issued.world.subject(of: issued.subject.user, teamId: issued.subject.client.teamId),
            tokens: [("access_token", issued.access.token)])
    }

    /// `grant_type=client_credentials` with `scope=user.migration`: a team's token for user
    /// migration, for the owner's secret or, during a migration window, the previous owner's.
    func migrationToken(client: World.Client, team: String, active: ActiveScenario) async throws -> Issued {
        let now = active.now
        let (token, lifetime) = try await state.withSession(active) { session, world in
            let lifetime = world.settings.accessTokenLifetimeSeconds
            let token = OpaqueToken.make(.accessToken, tag: state.scope.tag)
            try await session.store(
                migrationToken: MigrationTokenRecord(
                    token: token, clientId: client.id, teamId: team, expiresAt: now.addingTimeInterval(Double(lifetime))
                ))
            return (token, lifetime)
        }
        return Issued(response: TokenResponse(accessToken: token, expiresIn: lifetime), tokens: [])
    }

    private static func newTokens(
        tag: UInt32, for userKey: String, client: World.Client, generation: Int, authTime: Date, nonce: String?,
        world: World,
        now: Date, withRefresh: Bool
    ) -> (access: AccessTokenRecord, refresh: RefreshTokenRecord?) {
        let access = AccessTokenRecord(
            token: OpaqueToken.make(.accessToken, tag: tag), clientId: client.id, appGroupId: client.appGroupId,
            userKey: userKey,
            expiresAt: now.addingTimeInterval(Double(world.settings.accessTokenLifetimeSeconds)),
            consentGeneration: generation)
        let refresh =
            withRefresh
            ? RefreshTokenRecord(
                token: OpaqueToken.make(.refreshToken, tag: tag), clientId: client.id, appGroupId: client.appGroupId,
                userKey: userKey, authTime: authTime, nonce: nonce, consentGeneration: generation) : nil
        return (access, refresh)
    }
}
