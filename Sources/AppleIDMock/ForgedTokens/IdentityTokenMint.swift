#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Mints identity tokens to order (see `IdentityTokenOrder`), with the world's claims and keys. Pure:
/// nothing is stored, so a minted token leaves the mock's state as it was.
enum IdentityTokenMint {
    /// The forged `iss`: starts like Apple's, so a prefix check lets it through.
    static let forgedIssuer = "https://appleid.apple.com.forged.example"

    /// Mints `order` at `now`; `consent` is the user's stored consent for the client's app group, if any.
    static func mint(
        _ order: IdentityTokenOrder, world: World, keys: ResolvedKeys, consent stored: Consent?, now: Date
    ) throws -> MintedToken {
        let name = world.scenario.name
        guard let user = world.users[order.userKey] else {
            throw ControlRefusal.notFound("no user \"\(order.userKey)\" in scenario \"\(name)\"")
        }
        guard let client = world.clients[order.clientId] else {
            throw ControlRefusal.notFound("no client \"\(order.clientId)\" in scenario \"\(name)\"")
        }
        if order.flow == .native, case .services = client.kind {
            throw ControlRefusal.notApplicable(
                "native tokens are issued to an app's bundle ID; \(client.id) is a Services ID")
        }
        if order.defect == .wrongNonce, order.nonce == nil {
            throw ControlRefusal.notApplicable("wrong-nonce needs the nonce the backend expects (nonce)")
        }
        let consent =
            stored.flatMap { $0.status == .authorized ? $0 : nil }
            ?? Consent(
                userKey: user.key, appGroupId: client.appGroupId, scopes: order.scopes ?? ["name", "email"],
                hidesEmail: user.hideEmail, status: .authorized, generation: 1, authorizedAt: now)
        let source: IdentityTokenFactory.Source
        switch order.flow {
        case .web: source = .codeExchange(accessToken: OpaqueToken.make(.accessToken))
        case .native: source = .native(code: OpaqueToken.make(.code))
        case .refresh: source = .refresh(accessToken: OpaqueToken.make(.accessToken))
        }
        let subject = IdentityTokenFactory.Subject(
            user: user, consent: consent, client: client, nonce: order.nonce, authTime: now)
        let issued = IdentityTokenFactory(world: world).claims(for: subject, source: source, now: now)
        let payload: Data
        if order.set.isEmpty, order.remove.isEmpty, order.defect?.changesClaims != true {
            // The claims as issued: the same bytes as the round trip below would give, without it.
            payload = try TokenMinter.encode(issued)
        } else {
            guard case .object(var claims) = try JSONValue.parse(try TokenMinter.encode(issued)) else {
                throw ControlRefusal.notApplicable("the claims are not an object")
            }
            for name in order.remove { claims[name] = nil }
            claims.merge(order.set) { _, new in new }
            if let defect = order.defect {
                apply(defect, to: &claims, world: world, client: client, order: order, now: now)
            }
            payload = try TokenMinter.encode(JSONValue.object(claims))
        }
        let token = try signing(for: order.defect, keys: keys).compact(payload)
        return MintedToken(
            token: token, defect: order.defect?.rawValue, expected: order.defect == nil ? "accept" : "reject")
    }

    /// Changes the claims for `defect` (the signing defects leave them as they are).
    private static func apply(
        _ defect: IdentityTokenOrder.Defect, to claims: inout [String: JSONValue], world: World,
        client: World.Client, order: IdentityTokenOrder, now: Date
    ) {
        let seconds = Int(now.timeIntervalSince1970)
        let lifetime = world.settings.idTokenLifetimeSeconds
        switch defect {
        case .expired:
            claims["iat"] = .number(Double(seconds - lifetime - 3_600))
            claims["exp"] = .number(Double(seconds - 3_600))
        case .notYetValid:
            claims["iat"] = .number(Double(seconds + 3_600))
            claims["nbf"] = .number(Double(seconds + 3_600))
            claims["exp"] = .number(Double(seconds + 3_600 + lifetime))
        case .wrongIssuer:
            claims["iss"] = .string(forgedIssuer)
        case .wrongAudience:
            let other = world.clients.keys.sorted().first { $0 != client.id } ?? "\(client.id).other"
            claims["aud"] = .string(other)
        case .wrongNonce:
            claims["nonce"] = .string((order.nonce ?? "") + "-not-the-nonce-you-sent")
        case .badSignature, .algNone, .hs256PublicKey, .unknownKid, .missingKid:
            break
        }
    }

    /// How a token with `defect` is signed.
    static func signing(for defect: IdentityTokenOrder.Defect?, keys: ResolvedKeys) throws -> JWSSigning {
        switch defect {
        case .badSignature: .badSignature(keys.signing)
        case .algNone: .none(kid: keys.signing.kid)
        case .hs256PublicKey: .hs256WithPublicKey(keys.signing)
        case .unknownKid: .apple(try StrangerKey.key())
        case .missingKid: .withoutKid(keys.signing)
        default: .apple(keys.signing)
        }
    }

}
