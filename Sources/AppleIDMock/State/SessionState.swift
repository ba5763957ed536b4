import Crypto
import Foundation

/// Everything that changes while the mock runs: consents, codes and tokens. A value type whose
/// methods hold the grant rules, so they are tested without HTTP; `MockRuntime` owns the one copy.
public struct SessionState: Sendable {
    var consents: [String: Consent] = [:]
    /// Users whose Apple Account was deleted.
    var deletedUsers: Set<String> = []
    /// (user, app group) pairs whose relay forwarding is off.
    var relayForwardingOff: Set<String> = []
    /// Client-credentials tokens for user migration.
    var migrationTokens: [String: MigrationTokenRecord] = [:]
    /// User access tokens already spent on a migration call.
    var migrationSpentAccessTokens: Set<String> = []
    private(set) var codes: [String: AuthorizationCodeRecord] = [:]
    private(set) var accessTokens: [String: AccessTokenRecord] = [:]
    private(set) var refreshTokens: [String: RefreshTokenRecord] = [:]
    private var insertsSinceSweep = 0

    public init() {}

    static func consentKey(_ userKey: String, _ appGroupId: String) -> String {
        "\(userKey)\u{0}\(appGroupId)"
    }

    // MARK: - Consent

    /// The consent record of a user for an app group (standing or revoked), if there ever was one.
    public func consent(userKey: String, appGroupId: String) -> Consent? {
        consents[Self.consentKey(userKey, appGroupId)]
    }

    /// All consent records, sorted by user then group.
    public var allConsents: [Consent] {
        consents.values.sorted { ($0.userKey, $0.appGroupId) < ($1.userKey, $1.appGroupId) }
    }

    /// Authorizes `userKey` for the group. A standing consent is reused as it is (scopes frozen);
    /// otherwise a new one is granted with `scopes` and `hidesEmail`, and `isFirst` is true.
    /// A deleted Apple Account cannot sign in.
    public mutating func authorize(
        userKey: String, appGroupId: String, scopes: [String], hidesEmail: Bool, now: Date
    ) throws(OAuthError) -> (consent: Consent, isFirst: Bool) {
        guard !deletedUsers.contains(userKey) else {
            throw OAuthError(
                "invalid_request", description: "Invalid request.",
                reason: "the Apple Account of user \(userKey) was deleted")
        }
        let key = Self.consentKey(userKey, appGroupId)
        if let existing = consents[key], existing.status == .authorized {
            return (existing, false)
        }
        let consent = Consent(
            userKey: userKey, appGroupId: appGroupId, scopes: scopes.filter { $0 == "name" || $0 == "email" }.sorted(),
            hidesEmail: hidesEmail, status: .authorized, generation: (consents[key]?.generation ?? 0) + 1,
            authorizedAt: now, revokedAt: nil)
        consents[key] = consent
        return (consent, true)
    }

    /// Ends a user's consent for a group; their tokens stop working. Returns whether one stood.
    @discardableResult
    public mutating func revokeConsent(userKey: String, appGroupId: String, now: Date) -> Bool {
        let key = Self.consentKey(userKey, appGroupId)
        guard var consent = consents[key], consent.status == .authorized else { return false }
        consent.status = .revoked
        consent.revokedAt = now
        consents[key] = consent
        relayForwardingOff.remove(key)  // a new consent starts with forwarding on
        return true
    }

    func isStanding(userKey: String, appGroupId: String, generation: Int) -> Bool {
        guard let consent = consent(userKey: userKey, appGroupId: appGroupId) else { return false }
        return consent.status == .authorized && consent.generation == generation
    }

    // MARK: - Codes

    /// Stores a new authorization code.
    public mutating func store(code record: AuthorizationCodeRecord) {
        codes[record.code] = record
        noteInsert(now: record.issuedAt)
    }

    /// Exchanges a code, applying Apple's checks in order; the code is spent on success.
    public mutating func redeem(
        code: String, clientId: String, redirectUri: String?, codeVerifier: String?, pkce: MockSettings.PKCEMode,
        now: Date
    ) throws(OAuthError) -> AuthorizationCodeRecord {
        guard var record = codes[code] else { throw .codeExpired }
        if record.redeemedAt != nil { throw .codeUsed }
        guard now < record.expiresAt,
            isStanding(userKey: record.userKey, appGroupId: record.appGroupId, generation: record.consentGeneration)
        else { throw .codeExpired }
        guard record.clientId == clientId else {
            throw .invalidGrant("client_id mismatch. The code was not issued to \(clientId).")
        }
        if record.redirectUri != nil && redirectUri == nil {
            throw .invalidRequest("redirect_uri is required: the authorization used one")
        }
        guard record.redirectUri == redirectUri else {
            throw .invalidGrant("redirect_uri mismatch. The code was not issued to \(redirectUri ?? "").")
        }
        try Self.checkPKCE(record: record, verifier: codeVerifier, mode: pkce)
        record.redeemedAt = now
        codes[code] = record
        return record
    }

    private static func checkPKCE(
        record: AuthorizationCodeRecord, verifier: String?, mode: MockSettings.PKCEMode
    ) throws(OAuthError) {
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

    // MARK: - Tokens

    /// Stores an access token and, when given, a refresh token.
    public mutating func store(access: AccessTokenRecord, refresh: RefreshTokenRecord?, now: Date) {
        accessTokens[access.token] = access
        if let refresh { refreshTokens[refresh.token] = refresh }
        noteInsert(now: now)
    }

    /// A refresh token that still works for `clientId`.
    public func refreshToken(_ token: String, clientId: String) throws(OAuthError) -> RefreshTokenRecord {
        guard let record = refreshTokens[token],
            isStanding(userKey: record.userKey, appGroupId: record.appGroupId, generation: record.consentGeneration)
        else { throw .tokenRevoked }
        guard record.clientId == clientId else {
            throw .invalidGrant(nil, reason: "the refresh token was issued to \(record.clientId), not \(clientId)")
        }
        return record
    }

    /// Revokes a refresh or access token issued to `clientId`: the consent it came from ends.
    /// Unknown tokens, tokens of other clients and spent consents change nothing (Apple still answers 200).
    @discardableResult
    public mutating func revoke(token: String, clientId: String, hint: String?, now: Date) -> Bool {
        let refresh = refreshTokens[token].map { ($0.clientId, $0.userKey, $0.appGroupId, $0.consentGeneration) }
        let access = accessTokens[token].map { ($0.clientId, $0.userKey, $0.appGroupId, $0.consentGeneration) }
        let found = hint == "access_token" ? (access ?? refresh) : (refresh ?? access)
        guard let (owner, userKey, appGroupId, generation) = found, owner == clientId,
            isStanding(userKey: userKey, appGroupId: appGroupId, generation: generation)
        else { return false }
        return revokeConsent(userKey: userKey, appGroupId: appGroupId, now: now)
    }

    /// The user a refresh or access token was issued for.
    public func owner(ofToken token: String) -> String? {
        refreshTokens[token]?.userKey ?? accessTokens[token]?.userKey
    }

    // MARK: - Housekeeping

    /// Drops codes and tokens that expired over an hour ago and refresh tokens of ended consents now
    /// and then, so memory stays flat under load.
    private mutating func noteInsert(now: Date) {
        insertsSinceSweep += 1
        guard insertsSinceSweep >= 4_096 else { return }
        insertsSinceSweep = 0
        let horizon = now.addingTimeInterval(-3_600)
        codes = codes.filter { $0.value.expiresAt > horizon }
        accessTokens = accessTokens.filter { $0.value.expiresAt > horizon }
        migrationTokens = migrationTokens.filter { $0.value.expiresAt > horizon }
        migrationSpentAccessTokens = migrationSpentAccessTokens.filter { accessTokens[$0] != nil }
        refreshTokens = refreshTokens.filter {
            isStanding(
                userKey: $0.value.userKey, appGroupId: $0.value.appGroupId, generation: $0.value.consentGeneration)
        }
    }
}
