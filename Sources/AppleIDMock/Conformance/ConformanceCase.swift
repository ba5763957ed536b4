/// One case of a backend conformance run: a credential Apple sends (the backend must accept it) or
/// one Apple never sends (the backend should refuse it), with what is sent, what a correct backend
/// does, and the field incident behind it (reference §19). The ids are a contract: configs name
/// them in `knownFindings` and `cases`, and CI jobs gate on them.
enum ConformanceCase: String, CaseIterable, Sendable, Codable {
    // Must accept: a refusal is an outage waiting to happen.
    case okBaseline = "ok-baseline"
    case okAudArray = "ok-aud-array"
    case okSecondClient = "ok-second-client"
    case okClaimsAsStrings = "ok-claims-as-strings"
    case okClaimsAsBools = "ok-claims-as-bools"
    case okRealUserStatus = "ok-real-user-status"
    case okKidNotFirst = "ok-kid-not-first"
    case okRotatedKey = "ok-rotated-key"
    case okNativeHashedNonce = "ok-native-hashed-nonce"
    // Must refuse: accepting one is a hole.
    case sigBad = "sig-bad"
    case sigMissing = "sig-missing"
    case algNone = "alg-none"
    case algHS256PublicKey = "alg-hs256-pubkey"
    case algOtherAsymmetric = "alg-other-asym"
    case keyUntrustedSameKid = "key-untrusted-same-kid"
    case keyHeaderInjection = "key-header-injection"
    case kidUnknown = "kid-unknown"
    case jwsMalformed = "jws-malformed"
    case issWrong = "iss-wrong"
    case audOtherClient = "aud-other-client"
    case expPast = "exp-past"
    case subNotBound = "sub-not-bound"
    case nonceWrong = "nonce-wrong"
    case nonceAbsentSupported = "nonce-absent-supported"
    case xchError = "xch-error"
    case stateBad = "state-bad"
    case cHashBad = "chash-bad"
    // Should refuse: hardening (only Apple could sign these, and Apple never does).
    case issMissing = "iss-missing"
    case audMissing = "aud-missing"
    case audExtraMember = "aud-extra-member"
    case expMissing = "exp-missing"
    case iatMissing = "iat-missing"
    case iatFuture = "iat-future"
    case iatStale = "iat-stale"
    case subMissing = "sub-missing"
    case kidAbsentMulti = "kid-absent-multi"
    case boolStringFalse = "bool-string-false"
    case eventsObject = "events-object"
    // Policy: graded WARNING or INFO, never FAIL.
    case skewSmall = "skew-small"
    case nonceAbsentUnsupported = "nonce-absent-unsupported"
    case nonceSchemeConfusion = "nonce-scheme-confusion"
    case tokenReplay = "token-replay"

    /// What a correct backend does with the credential.
    enum Expectation: String, Sendable, Codable {
        case accept, reject
    }

    /// How much a wrong answer weighs.
    enum Weight: Sendable {
        /// Must: a wrong answer is a `FAIL`.
        case must
        /// Should: hardening; a wrong answer is a `WARNING`.
        case should
        /// Policy: a wrong answer is a `WARNING`, the other answer `INFO`.
        case policy
    }

    /// What the backend should do.
    var expected: Expectation {
        switch self {
        case .okBaseline, .okAudArray, .okSecondClient, .okClaimsAsStrings, .okClaimsAsBools, .okRealUserStatus,
            .okKidNotFirst, .okRotatedKey, .okNativeHashedNonce, .skewSmall:
            .accept
        default: .reject
        }
    }

    /// How much a wrong answer weighs on `path` (a bad signature through a code the backend exchanged
    /// over TLS is hardening, not a hole).
    func weight(on path: ConformancePath) -> Weight {
        switch self {
        case .sigBad where path == .exchange: .should
        case .issMissing, .audMissing, .audExtraMember, .expMissing, .iatMissing, .iatFuture, .iatStale, .subMissing,
            .kidAbsentMulti, .boolStringFalse, .eventsObject:
            .should
        case .skewSmall, .nonceAbsentUnsupported, .nonceSchemeConfusion, .tokenReplay: .policy
        default: .must
        }
    }

    /// The paths a case can arrive on: a "must accept" case only where Apple really sends it.
    var paths: Set<ConformancePath> {
        notification == nil ? tokenPaths : tokenPaths.union([.notifications])
    }

    /// What a case posts on the notifications path (`nil`: it has no notification): the forgeries
    /// `POST /__admin/notifications/conformance` sends, and the valid notification.
    var notification: ConformanceNotification? {
        switch self {
        case .okBaseline: .valid
        case .sigBad: .forged(.badSignature)
        case .algNone: .forged(.algNone)
        case .kidUnknown: .forged(.unknownKid)
        case .issWrong: .forged(.wrongIssuer)
        case .audOtherClient: .forged(.wrongAudience)
        case .expPast: .forged(.expired)
        case .eventsObject: .forged(.eventsObject)
        default: nil
        }
    }

    /// The paths an identity token or a code of the case can arrive on.
    private var tokenPaths: Set<ConformancePath> {
        switch self {
        case .eventsObject: []
        case .okSecondClient, .subNotBound, .nonceAbsentUnsupported, .nonceSchemeConfusion, .okNativeHashedNonce,
            .tokenReplay, .okRealUserStatus:
            [.native]
        case .nonceWrong, .nonceAbsentSupported: [.native, .web]
        case .xchError: [.exchange, .web]
        case .stateBad, .cHashBad: [.web]
        default: [.native, .exchange, .web]
        }
    }

    /// What is sent on `path`, what a correct backend does, and the incident behind it.
    func why(on path: ConformancePath) -> String {
        guard path == .notifications else { return why }
        return switch self {
        case .okBaseline:
            "A valid server-to-server notification ({\"payload\": jws}, events a JSON string), as Apple posts it: must be answered 2xx (the calibration); Apple does not retry a refusal for ever (reference §9)."
        case .sigBad:
            "A notification whose signature bytes were altered: must be refused. Anyone can post to the receiver's URL; an unverified notification lets a stranger revoke a user's sessions or delete an account (a-tokyo/apple-signin-auth #78, go-signin-with-apple #56 verified none)."
        case .algNone:
            "A notification with alg none and no signature: must be refused; a receiver that decodes without verifying takes it (a-tokyo/apple-signin-auth #78, go-signin-with-apple #56)."
        case .kidUnknown:
            "A notification signed by a key in no JWKS, under its own kid: must be refused (vapor/jwt-kit fell back to the first key on an unknown kid; reference §19)."
        case .issWrong:
            "A notification whose iss starts like Apple's but names another host: must be refused (social-core #1694 added the iss check only then)."
        case .audOtherClient:
            "A notification genuinely signed by Apple's key for another app (aud another bundle ID): must be refused, or routed to that app, never applied to this one's users (reference §9: route by aud)."
        case .expPast:
            "A notification whose exp passed a day ago (a replay): must be refused (ueberauth_apple CVE-2026-55954 checked no exp)."
        case .eventsObject:
            "events as a JSON object instead of the string holding JSON that Apple posts: should be refused; a receiver that reads both hides that it was never tested on Apple's form (reference §16)."
        default: why
        }
    }

    /// What is sent, what a correct backend does, and the incident behind it.
    var why: String {
        switch self {
        case .okBaseline:
            "A valid identity token for the configured client, as Apple's SDK hands it to the app: must be accepted (the calibration, re-sent every few cases so a lock-out is not read as a refusal, as jwt_tool does; reference §19)."
        case .okAudArray:
            "aud as a one-member array, as JWT allows: must be accepted; a backend that compares aud as one string refuses it, the brittleness that broke mixed logins once aud was checked (SocialiteProviders #1491/#1492)."
        case .okSecondClient:
            "A token for the other configured client id (bundle ID versus Services ID): must be accepted; SocialiteProviders #1491/#1492 broke mixed iOS and web logins."
        case .okClaimsAsStrings:
            "email_verified and is_private_email as the strings \"true\"/\"false\", as Apple often sends them: must be accepted (passport-apple #86, hasura-auth #599, hanko #2054, supabase/auth #1402)."
        case .okClaimsAsBools:
            "email_verified and is_private_email as JSON booleans, as Apple also sends them: must be accepted (the fixes for the strings of passport-apple #86 and supabase/auth #1402 must keep the booleans)."
        case .okRealUserStatus:
            "real_user_status 0, 1, 2 and absent: each must be accepted (nov/apple_id #11 read it stringified)."
        case .okKidNotFirst:
            "Signed by a published key that is not the JWKS's first: must be accepted (parse-server #6408, goth #321, node-apple-signin #8 used keys[0])."
        case .okRotatedKey:
            "Signed by a key rotated into the JWKS during the run: must be accepted, so the backend refetches the JWKS on an unknown kid (aspnet-contrib #383 cached keys for ever)."
        case .okNativeHashedNonce:
            "The token's nonce is sha256(rawNonce) in hex and the app posts the raw value, the native convention: must be accepted (firebase-ios-sdk #6336, better-auth #8870)."
        case .sigBad:
            "A valid token whose signature bytes were altered: must be refused (tuist #11935, laravel-sign-in-with-apple #19 decoded without verifying)."
        case .sigMissing:
            "header.payload. with alg RS256 and no signature: must be refused; a backend that decodes without verifying takes it (tuist #11935, authentik before #24017, laravel-sign-in-with-apple #19)."
        case .algNone:
            "alg none, None and NONE with no signature: must be refused; only RS256 is Apple's, and a backend that takes the allowed algorithms from the header takes none too (omnivore #4651)."
        case .algHS256PublicKey:
            "HS256 keyed with the published key as libraries hold it (SPKI PEM with its newline, PKCS#1 PEM, DER): must be refused (omnivore #4651, an account takeover)."
        case .algOtherAsymmetric:
            "Validly signed with a published key, but PS256 or RS512: must be refused; a backend allows RS256 alone, never the header's alg (omnivore #4651)."
        case .keyUntrustedSameKid:
            "Signed by a key of the attacker's that claims a published kid: must be refused; only a backend that checks no signature takes it (tuist #11935, laravel-sign-in-with-apple #19)."
        case .keyHeaderInjection:
            "Signed by the attacker's key, named in the header (an embedded jwk, or x5c with its certificate; a jku pointing at its JWKS, or an x5u at its certificate): must be refused; keys come from Apple's JWKS only (node-jose trusted an embedded jwk, CVE-2018-0114)."
        case .kidUnknown:
            "Signed by a key in no JWKS, under its own kid: must be refused (vapor/jwt-kit fell back to the first key; reference §19, keys)."
        case .jwsMalformed:
            "Not a compact JWS (two or four segments, a payload that is not base64url JSON): must be refused; decoders that read segments before verifying (tuist #11935, fastapi-sso) throw, and a 500 reads as an outage."
        case .issWrong:
            "iss starting like Apple's but another host: must be refused (social-core #1694 added the check)."
        case .audOtherClient:
            "Genuinely signed by Apple's key for another client id, a sibling app's token: must be refused (go-pkgz/auth #280, parse-server GHSA-x6fw-778m-wr9v, SocialiteProviders #1483)."
        case .expPast:
            "exp an hour ago: must be refused (ueberauth_apple CVE-2026-55954 checked no exp)."
        case .subNotBound:
            "A valid token, while the body names another user than its sub: the backend must sign in the token's user or refuse, never the one the body names (InsForge #1302 took identity from the body)."
        case .nonceWrong:
            "A nonce that is not the hash of the raw nonce posted: must be refused (SocialiteProviders #1484/#1489 never compared it)."
        case .nonceAbsentSupported:
            "No nonce in the token though nonce_supported is true and the app posted a raw nonce: must be refused (sesori_auth_server #24 skipped the check when absent)."
        case .xchError:
            "The token endpoint answers invalid_grant for the backend's code: the sign-in must be refused; a backend that signs in from the callback's id_token alone never learns the code was refused (authentik read the token endpoint's id_token unverified until #24017)."
        case .stateBad:
            "The callback's state is not the one this browser's sign-in started with (a forged one, or another browser's sign-in posted in this one: login CSRF): must be refused (SocialiteProviders #1485 rebuilt state from the token)."
        case .cHashBad:
            "The callback's id_token has a c_hash that does not match its code: must be refused, or the code can be swapped under a valid id_token (SocialiteProviders #1485 bound the callback to the token, not the session)."
        case .issMissing:
            "No iss: should be refused (hardening: only Apple could sign it, and never does; ueberauth_apple CVE-2026-55954 checked no iss, aud, iat or exp)."
        case .audMissing:
            "No aud: should be refused; a backend that accepts it checks aud only when present, which parse-server GHSA-x6fw-778m-wr9v turned into a bypass."
        case .audExtraMember:
            "aud an array of the client id and another app's: should be refused; the token is not the backend's alone, and a sibling's token logged in at go-pkgz/auth #280."
        case .expMissing:
            "No exp: should be refused (eight of ten libraries measured accept it; ueberauth_apple CVE-2026-55954 checked no exp)."
        case .iatMissing:
            "No iat: should be refused (ueberauth_apple CVE-2026-55954 checked no iat; without it no age can be judged)."
        case .iatFuture: "iat an hour ahead: should be refused (appwrite #13321)."
        case .iatStale:
            "iat a week old while exp is still ahead: should be refused (all ten libraries measured accept it; a-tokyo/apple-signin-auth #115)."
        case .subMissing:
            "No sub: should be refused; a backend that keys accounts by sub would sign in an empty user (InsForge #1302 took identity from elsewhere)."
        case .kidAbsentMulti:
            "No kid while the JWKS holds several keys: should be refused rather than guessed (parse-server #6408 and goth #321 guessed keys[0])."
        case .boolStringFalse:
            "email_verified as the string \"false\": a truthy string in many languages; the email must not count as verified (should be refused or signed in unverified; reference §19, claim types: passport-apple #86, hanko #2054)."
        case .eventsObject: why(on: .notifications)
        case .skewSmall:
            "iat 30 s ahead (clock skew): should be accepted; leeway of 60 to 120 s is normal, and none refuses users whose clocks drift (appwrite #13321 shows the other edge)."
        case .nonceAbsentUnsupported:
            "No nonce, nonce_supported false and no raw nonce posted: legitimate from older devices (authlib #259); noted either way."
        case .nonceSchemeConfusion:
            "The token's nonce equals the raw nonce instead of its sha256 hex: a backend that accepts both schemes gives a replayed raw value a way in (ory/kratos #3476); it should be refused, noted either way."
        case .tokenReplay:
            "The baseline's token sent a second time: a backend that signs it in again allows replay within exp, the longer where users pass ignoreExpiration (a-tokyo/apple-signin-auth #115); noted either way."
        }
    }
}

/// What a case posts to the backend's notification receiver.
enum ConformanceNotification: Sendable, Equatable {
    /// A notification as Apple posts it.
    case valid
    /// A notification with one defect.
    case forged(NotificationForgery.Defect)
}

/// Where a case's credential reaches the backend.
enum ConformancePath: String, Sendable, Codable, CaseIterable, Hashable {
    /// What an iOS app posts to the backend's login endpoint (`native`).
    case native
    /// A code the backend exchanges at the mock's token endpoint, which answers with the case's
    /// id_token (`exchange`).
    case exchange
    /// The browser's sign-in: the backend's start URL, the `form_post` to its callback with the
    /// case's id_token (and the same in the token response), and its redirects (`web`).
    case web
    /// Server-to-server notifications posted to the backend's receiver (`notifications`).
    case notifications
}
