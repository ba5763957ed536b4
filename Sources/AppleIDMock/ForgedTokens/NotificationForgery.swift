#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Server-to-server notifications made to order, valid or with one defect a receiver must reject,
/// as the JWS that is posted in `{"payload": …}`. Pure: nothing is queued or stored.
enum NotificationForgery {
    /// The one thing wrong with a notification.
    enum Defect: String, Sendable, CaseIterable {
        /// The signature's bytes altered.
        case badSignature = "bad-signature"
        /// `exp` a day ago.
        case expired
        /// Addressed to another app.
        case wrongAudience = "wrong-aud"
        /// An `iss` that starts like Apple's but is not.
        case wrongIssuer = "wrong-iss"
        /// Signed by a key in no JWKS.
        case unknownKid = "unknown-kid"
        /// `alg: none`, no signature.
        case algNone = "alg-none"
        /// `events` as a JSON object instead of a string holding JSON.
        case eventsObject = "events-object"
    }

    /// The notification of `kind` about `userKey` for `appGroupId` signed with `key`, with `defect` if
    /// given. `wrong-aud` addresses another app group's primary bundle ID, none of
    /// `foreignAudienceExcept` (client ids the receiver serves), or a made-up one.
    static func make(
        kind: LifecycleEvent.Kind, userKey: String, appGroupId: String, defect: Defect?, world: World,
        signedWith key: SigningKey, now: Date, foreignAudienceExcept served: Set<String> = []
    ) throws -> MintedToken {
        let name = world.scenario.name
        guard let user = world.users[userKey] else {
            throw ControlRefusal.notFound("no user \"\(userKey)\" in scenario \"\(name)\"")
        }
        guard let group = world.appGroups[appGroupId] else {
            throw ControlRefusal.notFound("no app group \"\(appGroupId)\" in scenario \"\(name)\"")
        }
        let isEmailEvent = kind == .emailDisabled || kind == .emailEnabled
        let draft = NotificationDraft(
            appGroupId: group.id, kind: kind, sub: world.subject(of: user, teamId: group.teamId),
            email: isEmailEvent ? world.relayEmail(of: user, teamId: group.teamId) : nil, eventTime: now)
        let issued = NotificationClaims(
            draft: draft, audience: group.primaryBundleId, now: now, settings: world.settings)
        guard case .object(var claims) = try JSONValue.parse(try TokenMinter.encode(issued)) else {
            throw ControlRefusal.notApplicable("the claims are not an object")
        }
        let seconds = Double(Int(now.timeIntervalSince1970))
        switch defect {
        case .expired:
            claims["iat"] = .number(seconds - 2 * 86_400)
            claims["exp"] = .number(seconds - 86_400)
        case .wrongAudience:
            let other = world.appGroups.values.map(\.primaryBundleId).sorted().first {
                $0 != group.primaryBundleId && !served.contains($0)
            }
            claims["aud"] = .string(other ?? "\(group.primaryBundleId).other")
        case .wrongIssuer:
            claims["iss"] = .string(IdentityTokenMint.forgedIssuer)
        case .eventsObject:
            if case .string(let text) = claims["events"], let events = try? JSONValue.parse(Data(text.utf8)) {
                claims["events"] = events
            }
        case .badSignature, .unknownKid, .algNone, .none:
            break
        }
        let signing: JWSSigning
        switch defect {
        case .badSignature: signing = .badSignature(key)
        case .unknownKid: signing = .apple(try StrangerKey.key())
        case .algNone: signing = .none(kid: key.kid)
        default: signing = .apple(key)
        }
        let token = try signing.compact(try TokenMinter.encode(JSONValue.object(claims)))
        return MintedToken(token: token, defect: defect?.rawValue, expected: defect == nil ? "accept" : "reject")
    }
}
