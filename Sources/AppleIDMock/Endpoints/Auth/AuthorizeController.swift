import Foundation
import Hummingbird

/// `GET`/`POST /auth/authorize` and the consent page's `POST /auth/authorize/consent`: Apple's
/// browser sign-in, ending in a redirect or `form_post` page to the registered return URL.
struct AuthorizeController: Sendable {
    let services: MockServices

    /// The path the consent page posts to.
    static let consentPath = "/auth/authorize/consent"

    func addRoutes(to router: Router<MockRequestContext>) {
        router.get("/auth/authorize") { request, context in
            await respond(request) {
                let form = try RequestReading.query(request, context: context)
                return try await services.rerunningAfterResets(context) { try await self.start(form, active: $0) }
            }
        }
        router.post("/auth/authorize") { request, context in
            await respond(request) {
                var form = try RequestReading.query(request, context: context)
                if RequestReading.isForm(request) {
                    form = try await RequestReading.bodyForm(request, context: context).merging(fallback: form)
                }
                return try await services.rerunningAfterResets(context) { [form] in
                    try await self.start(form, active: $0)
                }
            }
        }
        router.post(RouterPath(Self.consentPath)) { request, context in
            await respond(request) {
                guard RequestReading.isForm(request) else {
                    throw OAuthError.invalidRequest("the consent form must be form-urlencoded")
                }
                let form = try await RequestReading.bodyForm(request, context: context)
                return try await services.rerunningAfterResets(context) { try await self.consent(form, active: $0) }
            }
        }
    }

    /// Runs `body`, turning any failure into Apple's error page (or JSON when asked for), never a redirect.
    private func respond(_ request: Request, _ body: () async throws -> Response) async -> Response {
        do {
            return try await body()
        } catch {
            let oauthError = services.refusal(error, endpoint: "authorize")
            // A store outage is JSON (a 503 naming the cause), as on every /auth/* endpoint.
            if request.headers[.accept]?.contains("application/json") == true || oauthError.httpStatus == 503 {
                return Responses.oauthError(oauthError)
            }
            return Responses.html(
                AuthorizeErrorPage.render(oauthError), status: HTTPResponse.Status(code: oauthError.httpStatus))
        }
    }

    /// An authorization request's parameters checked in the state `active`: signed in straight away
    /// with `login_hint`, else the consent page.
    private func start(_ form: FormParameters, active: ActiveScenario) async throws -> Response {
        let world = active.world
        let authorization = try AuthorizationRequest.parse(form, world: world)
        if let hint = authorization.loginHint {
            guard let user = world.user(matching: hint) else {
                throw OAuthError(
                    "invalid_request", description: "Invalid request.",
                    reason:
                        "login_hint \"\(hint)\" matches no user key, email, sub or relay address of scenario \"\(world.scenario.name)\""
                )
            }
            return try await complete(authorization, userKey: user.key, hidesEmail: user.hideEmail, active: active)
        }
        let action = (services.publicBaseURL ?? "") + Self.consentPath
        let groupId = authorization.client.appGroupId
        let returning = try await services.state.withSession(active) { session, world in
            var keys = Set<String>()
            for user in world.scenario.users
            where try await session.consent(userKey: user.key, appGroupId: groupId)?.status == .authorized {
                keys.insert(user.key)
            }
            return keys
        }
        let page = ConsentPage.render(request: authorization, world: world, returning: returning, formAction: action)
        return Responses.html(page)
    }

    /// The consent page's answer in the state `active`.
    private func consent(_ form: FormParameters, active: ActiveScenario) async throws -> Response {
        let world = active.world
        let own = FormParameters(pairs: form.pairs.filter { AuthorizationRequest.parameterNames.contains($0.name) })
        let authorization = try AuthorizationRequest.parse(own, world: world)
        switch try form.field(ConsentPage.Field.action) {
        case "cancel":
            return AuthorizationResponder.cancel(authorization)
        case "continue":
            guard let key = try form.field(ConsentPage.Field.user), let user = world.users[key] else {
                throw OAuthError(
                    "invalid_request", description: "Invalid request.", reason: "choose one of the scenario's users")
            }
            let hides =
                switch try form.field(ConsentPage.Field.email) {
                case "share": false
                case "hide": true
                default: user.hideEmail
                }
            return try await complete(authorization, userKey: user.key, hidesEmail: hides, active: active)
        default:
            throw OAuthError.invalidRequest("\(ConsentPage.Field.action) must be continue or cancel")
        }
    }

    /// The user consented: record the consent, mint the code (and id_token) and send them back.
    private func complete(
        _ authorization: AuthorizationRequest, userKey: String, hidesEmail: Bool, active: ActiveScenario
    ) async throws -> Response {
        let now = active.now
        let outcome = try await services.state.withSession(active) { session, world in
            guard let user = world.users[userKey] else {
                throw OAuthError.invalidRequest("user \(userKey) is not in the scenario")
            }
            let (consent, isFirst) = try await session.authorize(
                userKey: userKey, appGroupId: authorization.client.appGroupId, scopes: authorization.scopes,
                hidesEmail: hidesEmail, now: now)
            let code = OpaqueToken.make(.code)
            try await session.store(
                code: AuthorizationCodeRecord(
                    code: code, clientId: authorization.client.id, appGroupId: authorization.client.appGroupId,
                    userKey: userKey, redirectUri: authorization.redirectUri, nonce: authorization.nonce,
                    codeChallenge: authorization.codeChallenge, codeChallengeMethod: authorization.codeChallengeMethod,
                    issuedAt: now, expiresAt: now.addingTimeInterval(Double(world.settings.codeLifetimeSeconds)),
                    authTime: now, consentGeneration: consent.generation, redeemedAt: nil))
            return (world: world, user: user, consent: consent, isFirst: isFirst, code: code)
        }
        if let draft = JournalDraft.current {
            draft.note(
                userKey: userKey, sub: outcome.world.subject(of: outcome.user, teamId: authorization.client.teamId))
            draft.note(issued: "code", outcome.code)
        }
        var fields = [("code", outcome.code)]
        if authorization.wantsIdToken {
            let subject = IdentityTokenFactory.Subject(
                user: outcome.user, consent: outcome.consent, client: authorization.client, nonce: authorization.nonce,
                authTime: now)
            let claims = IdentityTokenFactory(world: outcome.world).claims(
                for: subject, source: .authorize(code: outcome.code), now: now)
            fields.append(("id_token", try TokenMinter.sign(claims, with: active.keys.signing)))
        }
        if let state = authorization.state { fields.append(("state", state)) }
        if outcome.isFirst && [.formPost, .webMessage].contains(authorization.responseMode)
            && !outcome.consent.scopes.isEmpty
        {
            let identity = outcome.world.emailIdentity(
                of: outcome.user, consent: outcome.consent, teamId: authorization.client.teamId)
            let user = FirstAuthorizationUser(
                name: outcome.consent.scopes.contains("name") ? outcome.user.name : nil, email: identity?.email)
            fields.append(("user", user.jsonText))
        }
        services.logger.info(
            "authorized",
            metadata: [
                "idp.client_id": .string(authorization.client.id), "idp.user": .string(userKey),
                "idp.first_authorization": .stringConvertible(outcome.isFirst),
            ])
        return AuthorizationResponder.deliver(fields, for: authorization)
    }
}
