import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `POST /auth/token`: the `authorization_code`, `refresh_token` and (for app transfers)
/// `client_credentials` grants, checked in Apple's order (grant type, required parameters, client
/// authentication, then the grant). The grants themselves are `TokenIssuance`'s.
struct TokenController: Sendable {
    /// Codes a conformance run armed (`exchange` path): their id_token is the run's case.
    let arms: ConformanceArms

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.post(RouterPath(ApplePath.token)) { request, context in
            try await self.token(request, context)
        }
    }

    private func token(_ request: Request, _ context: WorldRequestContext) async throws -> Response {
        let active = try await context.current()
        let form = try await RequestReading.tokenForm(request, context: context, settings: active.world.settings)
        let arm =
            try form.field("grant_type") == "authorization_code" ? try form.field("code").flatMap(arms.arm(of:)) : nil
        if arm?.testCase == .xchError { throw AppleError.codeExpired }
        var issued = try await exchange(form, state: context.world, active: active, journal: context.journal)
        if let arm, let token = issued.response.idToken {
            issued.response.idToken = try ConformanceArms.idToken(replacing: token, for: arm)
        }
        if let journal = context.journal {
            if let userKey = issued.userKey { journal.note(userKey: userKey, sub: issued.sub) }
            for token in issued.tokens { journal.note(issued: token.name, token.value) }
        }
        return Responses.appleJSON(issued.response)
    }

    private func exchange(
        _ form: FormParameters, state: MockState, active: ActiveScenario, journal: JournalDraft?
    ) async throws -> TokenIssuance.Issued {
        let grantType = try form.field("grant_type")
        guard let grantType, ["authorization_code", "refresh_token", "client_credentials"].contains(grantType) else {
            throw AppleError("unsupported_grant_type", reason: "grant_type \"\(grantType ?? "")\" is not supported")
        }
        // Required grant parameters are checked before the client secret (reference §2.2's order).
        let required = ["authorization_code": "code", "refresh_token": "refresh_token"][grantType]
        if let required, try form.field(required) == nil { throw AppleError.invalidRequest("\(required) is missing") }
        let (client, team) = try await ClientAuthentication.authenticate(
            clientId: try form.field("client_id"), secret: try form.field("client_secret"), in: active,
            journal: journal)
        let issuance = TokenIssuance(state: state)
        switch grantType {
        case "authorization_code":
            guard let code = try form.field("code") else { throw AppleError.invalidRequest("code is missing") }
            return try await issuance.redeem(
                code: code, redirectUri: try form.field("redirect_uri", allowEmpty: true),
                codeVerifier: try form.field("code_verifier"),
                client: client, active: active)
        case "client_credentials":
            guard let scope = try form.field("scope") else {
                throw AppleError("invalid_scope", reason: "scope is missing")
            }
            guard scope == "user.migration" else {
                throw AppleError("invalid_scope", reason: "scope must be user.migration, found \(scope)")
            }
            return try await issuance.migrationToken(client: client, team: team, active: active)
        default:
            guard let token = try form.field("refresh_token") else {
                throw AppleError.invalidRequest("refresh_token is missing")
            }
            return try await issuance.refresh(token: token, client: client, active: active)
        }
    }
}
