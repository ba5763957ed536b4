#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A user's consent to an app group and the authorization code that goes with it, recorded in one
/// store step: what the browser's authorize flow and native sign-in both do when the user agrees.
enum CodeIssuance {
    /// What the code is bound to.
    struct Grant: Sendable {
        var userKey: String
        var client: World.Client
        var scopes: [String]
        var hidesEmail: Bool
        /// The return URL (`nil` for native sign-in).
        var redirectUri: String?
        var nonce: String?
        var codeChallenge: String?
        var codeChallengeMethod: String?
    }

    /// The code issued, with the consent as it now stands.
    struct Issued: Sendable {
        var world: World
        var user: User
        var consent: Consent
        /// Whether this was the user's first authorization of the app group.
        var isFirst: Bool
        var code: String

        /// The signed id_token that goes with the code (Apple hands one out with every code), for
        /// `client`, bound to `nonce`, minted by the flow `source` names.
        func identityToken(
            client: World.Client, nonce: String?, source: IdentityTokenFactory.Source, active: ActiveScenario
        ) throws -> (claims: IdentityTokenClaims, jws: String) {
            let subject = IdentityTokenFactory.Subject(
                user: user, consent: consent, client: client, nonce: nonce, authTime: active.now)
            let claims = IdentityTokenFactory(world: world).claims(for: subject, source: source, now: active.now)
            return (claims, try TokenMinter.sign(claims, with: active.keys.signing))
        }
    }

    /// Records the consent and stores a new code in the state `active`.
    static func issue(_ grant: Grant, state: MockState, active: ActiveScenario) async throws -> Issued {
        let now = active.now
        return try await state.withSession(active) { session, world in
            guard let user = world.users[grant.userKey] else {
                throw AppleError.invalidRequest("user \(grant.userKey) is not in the scenario")
            }
            let (consent, isFirst) = try await session.authorize(
                userKey: grant.userKey, appGroupId: grant.client.appGroupId, scopes: grant.scopes,
                hidesEmail: grant.hidesEmail, now: now)
            let code = OpaqueToken.make(.code, tag: state.scope.tag)
            try await session.store(
                code: AuthorizationCodeRecord(
                    code: code, clientId: grant.client.id, appGroupId: grant.client.appGroupId,
                    userKey: grant.userKey, redirectUri: grant.redirectUri, nonce: grant.nonce,
                    codeChallenge: grant.codeChallenge, codeChallengeMethod: grant.codeChallengeMethod,
                    issuedAt: now, expiresAt: now.addingTimeInterval(Double(world.settings.codeLifetimeSeconds)),
                    authTime: now, consentGeneration: consent.generation, redeemedAt: nil))
            return Issued(world: world, user: user, consent: consent, isFirst: isFirst, code: code)
        }
    }
}
