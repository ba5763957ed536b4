import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The grant rules as pure functions on values: what a sign-in, a code exchange, a refresh or a
/// migration bearer check decides, given the records involved. `Session` loads and stores them.
enum GrantRules {
    /// Authorizes a user for a group: a standing consent is reused as it is (scopes frozen);
    /// otherwise a new one is granted, and `isFirst` is true. A deleted Apple Account cannot sign in.
    static func authorize(
        existing: Consent?, accountDeleted: Bool, userKey: String, appGroupId: String, scopes: [String],
        hidesEmail: Bool, now: Date
    ) throws(AppleError) -> (consent: Consent, isFirst: Bool) {
        guard !accountDeleted else {
            throw AppleError(
                "invalid_request", description: "Invalid request.",
                reason: "the Apple Account of user \(userKey) was deleted")
        }
        if let existing, !isFirstAuthorization(existing, accountDeleted: false) { return (existing, false) }
        let consent = Consent(
            userKey: userKey, appGroupId: appGroupId, scopes: scopes.filter { $0 == "name" || $0 == "email" }.sorted(),
            hidesEmail: hidesEmail, status: .authorized, generation: (existing?.generation ?? 0) + 1,
            authorizedAt: now, revokedAt: nil)
        return (consent, true)
    }

    /// Whether the next sign-in with this consent record is a first one (a new consent, which sends
    /// the user's name and email): there is none, or it was revoked. A deleted account signs in no more.
    static func isFirstAuthorization(_ consent: Consent?, accountDeleted: Bool) -> Bool {
        !accountDeleted && consent?.status != .authorized
    }

    /// Whether `consent` is the standing authorization of generation `generation`.
    static func isStanding(_ consent: Consent?, generation: Int) -> Bool {
        consent?.status == .authorized && consent?.generation == generation
    }

    /// Exchanges a code, applying Apple's checks in order; returns it marked as redeemed.
    /// `emptyRedirectUri` says what `redirect_uri=""` does to a code issued without a return URL
    /// (a native code).
    static func redeem(
        _ record: AuthorizationCodeRecord?, consent: Consent?, clientId: String, redirectUri: String?,
        codeVerifier: String?, pkce: MockSettings.PKCEMode,
        emptyRedirectUri: MockSettings.NativeEmptyRedirectUri = .refuse, now: Date
    ) throws(AppleError) -> AuthorizationCodeRecord {
        guard var record else { throw .codeExpired }
        if record.redeemedAt != nil { throw .codeUsed }
        guard now < record.expiresAt, isStanding(consent, generation: record.consentGeneration) else {
            throw .codeExpired
        }
        guard record.clientId == clientId else {
            throw .invalidGrant(
                clientMismatch(clientId), reason: "the code was issued to \(record.clientId), not \(clientId)")
        }
        if record.redirectUri != nil && (redirectUri ?? "").isEmpty {
            throw .invalidRequest("redirect_uri is required: the authorization used one")
        }
        if record.redirectUri == nil, redirectUri == "" {
            guard emptyRedirectUri == .accept else {
                throw .invalidGrant(
                    "redirect_uri mismatch. The code was not issued to .",
                    reason: "redirect_uri is present but empty, and this native code was issued without one: "
                        + "omit the parameter (setting nativeEmptyRedirectUri: accept lets it pass)")
            }
        } else if record.redirectUri != redirectUri {
            throw .invalidGrant("redirect_uri mismatch. The code was not issued to \(redirectUri ?? "").")
        }
        try checkPKCE(record: record, verifier: codeVerifier, mode: pkce)
        record.redeemedAt = now
        return record
    }

    /// Apple's description for a code or token presented by a client it was not issued to.
    static func clientMismatch(_ clientId: String) -> String {
        "client_id mismatch. The code was not issued to \(clientId)."
    }

    private static func checkPKCE(
        record: AuthorizationCodeRecord, verifier: String?, mode: MockSettings.PKCEMode
    ) throws(AppleError) {
        guard mode != .off else { return }
        guard let challenge = record.codeChallenge else {
            if verifier != nil, mode == .strict {
                throw .invalidGrant(nil, reason: "code_verifier sent, but the authorization had no code_challenge")
            }
            return
        }
        guard let verifier else {
            throw .invalidGrant(nil, reason: "the authorization had a code_challenge; code_verifier is missing")
        }
        let computed =
            record.codeChallengeMethod == "S256"
            ? Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncoded : verifier
        guard computed == challenge else {
            throw .invalidGrant(nil, reason: "code_verifier does not match the code_challenge")
        }
    }

    /// A refresh token that still works for `clientId`.
    static func refresh(_ record: RefreshTokenRecord?, consent: Consent?, clientId: String) throws(AppleError)
        -> RefreshTokenRecord
    {
        guard let record, isStanding(consent, generation: record.consentGeneration) else { throw .tokenRevoked }
        guard record.clientId == clientId else {
            // The catalogue's text for a grant of another client (§2.4, §10), as for codes.
            throw .invalidGrant(
                clientMismatch(clientId), reason: "the refresh token was issued to \(record.clientId), not \(clientId)")
        }
        return record
    }

    /// Checks a bearer token for `/auth/usermigrationinfo` (reference §8): a team token of this client,
    /// or a user access token of this client whose consent stands, single use for migration. Both
    /// last an hour.
    static func migrationBearer(
        teamToken: MigrationTokenRecord?, userToken: AccessTokenRecord?, userConsent: Consent?, spent: Bool,
        clientId: String, teamId: String, now: Date
    ) throws(AppleError) -> MigrationBearer {
        if let record = teamToken {
            guard record.clientId == clientId, record.teamId == teamId else {
                throw .invalidRequest("the bearer token was issued to \(record.clientId) of team \(record.teamId)")
            }
            guard now < record.expiresAt else { throw .invalidGrant(nil, reason: "the bearer token expired") }
            return MigrationBearer(teamId: record.teamId)
        }
        if let record = userToken {
            guard record.clientId == clientId else {
                throw .invalidRequest("the bearer token was issued to \(record.clientId)")
            }
            guard now < record.expiresAt, isStanding(userConsent, generation: record.consentGeneration) else {
                throw .invalidGrant(nil, reason: "the user access token expired or its consent ended")
            }
            guard !spent else {
                throw .invalidGrant(nil, reason: "the user access token was already used for migration")
            }
            return MigrationBearer(teamId: teamId)
        }
        throw .invalidGrant(nil, reason: "unknown bearer token")
    }

    /// The credential state of a user for an app group: `notFound` while the user never authorized
    /// it, even after the account was deleted (reference §10); otherwise `revoked` once the consent
    /// ended or the account was deleted.
    static func credentialState(consent: Consent?, accountDeleted: Bool) -> CredentialState {
        guard let consent else { return .notFound }
        if accountDeleted { return .revoked }
        return consent.status == .authorized ? .authorized : .revoked
    }
}
