#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Builds the claims of an identity token for each place Apple issues one (reference §6.2).
struct IdentityTokenFactory: Sendable {
    /// Where the token is issued, which decides its claims.
    enum Source: Sendable {
        /// The web authorize response (`response_type=code id_token`): carries `c_hash`.
        case authorize(code: String)
        /// The token endpoint's `authorization_code` grant: carries `at_hash`.
        case codeExchange(accessToken: String)
        /// The token endpoint's `refresh_token` grant: sparse unless configured `full`.
        case refresh(accessToken: String)
        /// A native app's `identityToken`: carries `c_hash` and `real_user_status`.
        case native(code: String)
    }

    /// Everything about the sign-in the claims describe.
    struct Subject: Sendable {
        var user: User
        var consent: Consent
        var client: World.Client
        var nonce: String?
        var authTime: Date
    }

    let world: World

    /// The claims for `subject` issued from `source` at `now`.
    func claims(for subject: Subject, source: Source, now: Date) -> IdentityTokenClaims {
        let settings = world.settings
        let issuedAt = Int(now.timeIntervalSince1970)
        var claims = IdentityTokenClaims(
            aud: subject.client.id, exp: issuedAt + settings.idTokenLifetimeSeconds, iat: issuedAt,
            sub: world.subject(of: subject.user, teamId: subject.client.teamId),
            booleanStyle: settings.booleanClaimStyle)
        claims.authTime = Int(subject.authTime.timeIntervalSince1970)
        // Migrated users (authorized before the transfer) carry transfer_sub during the window.
        if let transfer = world.openTransfer(of: subject.client.appGroupId, at: now),
            subject.consent.authorizedAt < transfer.at
        {
            claims.transferSub = IdentifierDerivation.transferSubject(
                userKey: world.identityKey(of: subject.user), fromTeam: transfer.fromTeam, toTeam: transfer.toTeam)
        }
        switch source {
        case .authorize(let code):
            claims.cHash = IdentityTokenClaims.halfHash(code)
        case .native(let code):
            claims.cHash = IdentityTokenClaims.halfHash(code)
            claims.realUserStatus = subject.user.realUserStatus
        case .codeExchange(let accessToken):
            claims.atHash = IdentityTokenClaims.halfHash(accessToken)
        case .refresh(let accessToken):
            claims.atHash = IdentityTokenClaims.halfHash(accessToken)
            guard settings.refreshIdTokenClaims == .full else { return claims }
        }
        if case .refresh = source {} else { claims.nonce = subject.nonce }
        claims.nonceSupported = true
        if let identity = world.emailIdentity(of: subject.user, consent: subject.consent, teamId: subject.client.teamId)
        {
            claims.email = identity.email
            claims.emailVerified = identity.verified
            if identity.isPrivate || !settings.omitIsPrivateEmailWhenFalse {
                claims.isPrivateEmail = identity.isPrivate
            }
        }
        if subject.user.managedAccount {
            claims.orgId =
                subject.user.orgId ?? IdentifierDerivation.token(purpose: "org", length: 16, subject.user.key)
        }
        return claims
    }
}
