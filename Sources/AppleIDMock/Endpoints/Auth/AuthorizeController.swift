import Hummingbird
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `GET`/`POST /auth/authorize` and the consent page's `POST /auth/authorize/consent`: Apple's
/// browser sign-in, ending in a redirect or `form_post` page to the registered return URL. Refusals
/// are thrown; the group's `AppleErrorMiddleware` shows Apple's error page (never a redirect).
struct AuthorizeController: Sendable {
    /// The configured base URL (no trailing slash), for the consent form's action; `nil`: relative.
    let publicBaseURL: String?
    let logger: Logger

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.get(RouterPath(ApplePath.authorize)) { request, context in
            let form = try RequestReading.query(request, context: context)
            return try await self.start(form, context)
        }
        group.post(RouterPath(ApplePath.authorize)) { request, context in
            var form = try RequestReading.query(request, context: context)
            if RequestReading.isForm(request) {
                form = try await RequestReading.bodyForm(request, context: context).merging(fallback: form)
            }
            return try await self.start(form, context)
        }
        group.post(RouterPath(ApplePath.consent)) { request, context in
            guard RequestReading.isForm(request) else {
                throw AppleError.invalidRequest("the consent form must be form-urlencoded")
            }
            let form = try await RequestReading.bodyForm(request, context: context)
            return try await self.consent(form, context)
        }
    }

    /// An authorization request's parameters checked in the state `active`: signed in straight away
    /// with `login_hint`, else the consent page.
    private func start(_ form: FormParameters, _ context: WorldRequestContext) async throws -> Response {
        let active = try await context.current()
        let world = active.world
        let authorization = try AuthorizationRequest.parse(form, world: world)
        if let hint = authorization.loginHint {
            guard let user = world.user(matching: hint) else {
                throw AppleError(
                    "invalid_request", description: "Invalid request.",
                    reason:
                        "login_hint \"\(hint)\" matches no user key, email, sub or relay address of scenario \"\(world.scenario.name)\""
                )
            }
            return try await complete(
                authorization, userKey: user.key, hidesEmail: user.hideEmail, active: active, context)
        }
        // The consent form posts back into the same world, however the namespace was named (the
        // header does not come back with a browser's POST; the prefix does).
        let action = (publicBaseURL ?? "") + context.world.scope.pathPrefix + ApplePath.absolute(ApplePath.consent)
        let groupId = authorization.client.appGroupId
        let returning = try await context.world.withSession(active) { session, world in
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
    private func consent(_ form: FormParameters, _ context: WorldRequestContext) async throws -> Response {
        let active = try await context.current()
        let world = active.world
        let own = FormParameters(pairs: form.pairs.filter { AuthorizationRequest.parameterNames.contains($0.name) })
        let authorization = try AuthorizationRequest.parse(own, world: world)
        switch try form.field(ConsentPage.Field.action) {
        case "cancel":
            return AuthorizationResponder.cancel(authorization)
        case "continue":
            guard let key = try form.field(ConsentPage.Field.user), let user = world.users[key] else {
                throw AppleError(
                    "invalid_request", description: "Invalid request.", reason: "choose one of the scenario's users")
            }
            let hides =
                switch try form.field(ConsentPage.Field.email) {
                case "share": false
                case "hide": true
                default: user.hideEmail
                }
            return try await complete(authorization, userKey: user.key, hidesEmail: hides, active: active, context)
        default:
            throw AppleError.invalidRequest("\(ConsentPage.Field.action) must be continue or cancel")
        }
    }

    /// The user consented: record the consent, mint the code (and id_token) and send them back.
    private func complete(
        _ authorization: AuthorizationRequest, userKey: String, hidesEmail: Bool, active: ActiveScenario,
        _ context: WorldRequestContext
    ) async throws -> Response {
        let journal = context.journal
        let outcome = try await CodeIssuance.issue(
            .init(
                userKey: userKey, client: authorization.client, scopes: authorization.scopes, hidesEmail: hidesEmail,
                redirectUri: authorization.redirectUri, nonce: authorization.nonce,
                codeChallenge: authorization.codeChallenge, codeChallengeMethod: authorization.codeChallengeMethod),
            state: context.world, active: active)
        journal?.note(
            userKey: userKey, sub: outcome.world.subject(of: outcome.user, teamId: authorization.client.teamId))
        journal?.note(issued: "code", outcome.code)
        var fields = [("code", outcome.code)]
        if authorization.wantsIdToken {
            let token = try outcome.identityToken(
                client: authorization.client, nonce: authorization.nonce, source: .authorize(code: outcome.code),
                active: active)
            fields.append(("id_token", token.jws))
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
        logger.info(
            "authorized",
            metadata: [
                "idp.client_id": .string(authorization.client.id), "idp.user": .string(userKey),
                "idp.first_authorization": .stringConvertible(outcome.isFirst),
            ])
        return AuthorizationResponder.deliver(fields, for: authorization)
    }
}
