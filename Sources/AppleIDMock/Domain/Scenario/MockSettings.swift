/// Switches that choose between Apple's documented and field-observed behaviour (reference §13).
/// Every default is what Apple's server does today in the field.
struct MockSettings: Sendable, Codable, Equatable {
    /// How `email_verified` and `is_private_email` are written in id_tokens.
    enum BooleanClaimStyle: String, Sendable, Codable, CaseIterable {
        /// JSON `true`/`false`, as most tokens since 2024.
        case boolean
        /// `"true"`/`"false"` strings, as tokens before 2024.
        case string
        /// Both in one token: `email_verified` a JSON boolean, `is_private_email` a string (our
        /// choice of split: which claim Apple writes which way in a mixed token is not known).
        case mixed
    }

    /// What `/auth/revoke` does with a token sent as `refresh_token=` instead of `token=` (some
    /// libraries did; Apple's answer is not known, reference §12.14).
    enum RevokeRefreshTokenParameter: String, Sendable, Codable, CaseIterable {
        /// `invalid_request`: the documented `token` is missing.
        case refuse
        /// `200` with an empty body, and nothing is revoked (a silent no-op).
        case ignore
        /// Read as `token` (with `token_type_hint=refresh_token`): the token is revoked.
        case accept
    }

    /// Which claims an id_token from the `refresh_token` grant carries.
    enum RefreshClaims: String, Sendable, Codable, CaseIterable {
        /// iss, aud, exp, iat, sub, at_hash, auth_time (what field reports show).
        case minimal
        /// The same claims as the authorization-code token.
        case full
    }

    /// When a PKCE `code_verifier` is required or refused.
    enum PKCEMode: String, Sendable, Codable, CaseIterable {
        /// A stored challenge requires a matching verifier, and a verifier without a challenge is refused.
        case strict
        /// Only a stored challenge is enforced.
        case whenChallenged
        /// PKCE is ignored.
        case off
    }

    /// The error for a token or revoke request whose body is not form-urlencoded.
    enum ContentTypeError: String, Sendable, Codable, CaseIterable {
        /// What the field sees for JSON bodies.
        case invalid_client
        /// What Apple's documentation lists.
        case invalid_request
    }

    /// The `type` of the account-deletion notification.
    enum DeleteEventType: String, Sendable, Codable, CaseIterable {
        /// What real payloads and libraries use.
        case accountDelete = "account-delete"
        /// What Apple's current documentation names it.
        case accountDeleted = "account-deleted"
    }

    /// The unit of a notification's `event_time`.
    enum EventTimeUnit: String, Sendable, Codable, CaseIterable {
        /// Real payloads.
        case milliseconds
        /// Apple's documentation example.
        case seconds
    }

    /// Order of the keys in `/auth/keys`.
    enum KeyOrder: String, Sendable, Codable, CaseIterable {
        /// Sorted by `kid`: the same bytes on every run.
        case stable
        /// Shuffled on every request, as Apple's endpoint does.
        case shuffled
    }

    /// The `issuer` that `/.well-known/openid-configuration` names (tokens always carry
    /// `https://appleid.apple.com`).
    enum DiscoveryIssuer: String, Sendable, Codable, CaseIterable {
        /// What Apple publishes (and what its tokens say).
        case appleid = "https://appleid.apple.com"
        /// What Apple's discovery said on 10–11 June 2025 while tokens kept `appleid` (reference §17).
        case account = "https://account.apple.com"
    }

    /// What the email relay does with mail from a sender the team did not register.
    enum UnregisteredSenders: String, Sendable, Codable, CaseIterable {
        /// `550 5.1.1 <sender>: unauthorized sender`, as most field reports show.
        case bounce
        /// Accepted (`250`) and never delivered, as one 2025 report says.
        case drop
    }

    /// What the code exchange does with a `redirect_uri` that is present but empty on a native code
    /// (one issued without a return URL). In 2026 backends forwarding `redirect_uri=""` for native
    /// codes failed against Apple (reference §18); Apple's exact answer is not known.
    enum NativeEmptyRedirectUri: String, Sendable, Codable, CaseIterable {
        /// `invalid_grant`, as for a mismatched return URL.
        case refuse
        /// Read as absent: the exchange goes on.
        case accept
    }

    /// The domain of the relay addresses the mock derives (reference §7, §18).
    enum RelayDomain: String, Sendable, Codable, CaseIterable {
        /// The domain of Sign in with Apple's relay addresses.
        case privaterelay = "privaterelay.appleid.com"
        /// The domain Apple's June 2026 Hide My Email news names for new addresses.
        case privateICloud = "private.icloud.com"
    }

    /// id_token lifetime (86400 today; 600 before 2021).
    var idTokenLifetimeSeconds = 86_400
    /// Authorization code lifetime.
    var codeLifetimeSeconds = 300
    /// Access token lifetime.
    var accessTokenLifetimeSeconds = 3_600
    /// String or boolean `email_verified` / `is_private_email`.
    var booleanClaimStyle = BooleanClaimStyle.boolean
    /// Omit `is_private_email` for real addresses (field) instead of writing `false`.
    var omitIsPrivateEmailWhenFalse = true
    /// Whether the refresh grant returns an `id_token`.
    var refreshReturnsIdToken = true
    /// Claims of refresh-grant id_tokens.
    var refreshIdTokenClaims = RefreshClaims.minimal
    /// PKCE enforcement.
    var pkce = PKCEMode.strict
    /// How far in the future a client secret's `iat` may be.
    var clientSecretIatLeewaySeconds = 60
    /// The error for non-form bodies on `/auth/token` and `/auth/revoke`.
    var wrongContentTypeError = ContentTypeError.invalid_client
    /// Refuse non-HTTPS, IP-address and localhost return URLs at authorize, as Apple's portal does.
    var requireHttpsRedirectUris = false
    /// The `kid` that signs tokens (default: the first bundled key by name).
    var signingKeyId: String?
    /// Order of `/auth/keys` (shuffled per response, as Apple's).
    var jwksOrder = KeyOrder.shuffled
    /// `account-delete` (field) or `account-deleted` (docs).
    var notificationDeleteType = DeleteEventType.accountDelete
    /// `event_time` in milliseconds (field) or seconds (docs).
    var notificationEventTimeUnit = EventTimeUnit.milliseconds
    /// What `/auth/revoke` does with `refresh_token=` sent instead of `token=`.
    var revokeRefreshTokenParameter = RevokeRefreshTokenParameter.refuse
    /// Also send `consent-revoked` when `/auth/revoke` ends a consent (unconfirmed at Apple).
    var notifyOnRevokeEndpoint = false
    /// Delivery attempts per notification before it is marked failed.
    var notificationMaxAttempts = 20
    /// The first retry delay; each retry doubles it.
    var notificationRetryInitialMilliseconds = 500
    /// The longest retry delay.
    var notificationRetryMaxMilliseconds = 30_000
    /// How long one delivery attempt may take.
    var notificationTimeoutMilliseconds = 5_000
    /// Days after a transfer during which migration works and id_tokens carry `transfer_sub`.
    var migrationWindowDays = 60
    /// How many lifecycle events and notifications the mock keeps (the oldest go first).
    var historyLimit = 1_000
    /// How many requests and notification attempts the journal keeps (the oldest go first).
    var journalLimit = 1_000
    /// How long keys replaced by a rotation stay in `/auth/keys` on the mock's clock (default: one
    /// day, the life of an id_token they signed).
    var keyGraceSeconds = 86_400
    /// The discovery document's `issuer`: Apple's, or the June 2025 drift to `account.apple.com`.
    var discoveryIssuer = DiscoveryIssuer.appleid
    /// Messages the email relay passes per relay address and day on the mock's clock (reference §7).
    var mailDailyLimit = 100
    /// The bytes of messages the relay's mailbox keeps at most; the oldest go first (counted in
    /// the mailbox summary).
    var mailboxMaxBytes = 64 * 1024 * 1024
    /// Refuse relay mail without a `DKIM-Signature` whose `d=` is a registered domain.
    var mailRequireDkimSignature = false
    /// What the email relay does with mail from an unregistered sender (reference §16: both seen).
    var mailUnregisteredSenders = UnregisteredSenders.bounce

    /// What a native code exchange with `redirect_uri=""` gets.
    var nativeEmptyRedirectUri = NativeEmptyRedirectUri.refuse
    /// The domain of relay addresses (the mail relay takes mail for every `RelayDomain`).
    var relayDomain = RelayDomain.privaterelay

    init() {}
}
