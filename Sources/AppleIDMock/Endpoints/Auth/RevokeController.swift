import Hummingbird
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `POST /auth/revoke`: ends the consent behind a refresh or access token. Answers `200` with an
/// empty body whether or not anything was revoked, as Apple does; parameters may also come by query.
struct RevokeController: Sendable {
    let logger: Logger

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.post(RouterPath(ApplePath.revoke)) { request, context in
            let active = try await context.current()
            let form = try await Self.form(request, context, settings: active.world.settings)
            return try await self.revoke(form, state: context.world, active: active, journal: context.journal)
        }
    }

    /// The request's parameters: a form body (filled in from the query), or the query alone.
    private static func form(_ request: Request, _ context: WorldRequestContext, settings: MockSettings) async throws
        -> FormParameters
    {
        if RequestReading.isForm(request) {
            // The query only fills in what the body lacks; a malformed query does not spoil a good body.
            let query = (try? RequestReading.query(request, context: context)) ?? FormParameters(pairs: [])
            return try await RequestReading.bodyForm(request, context: context).merging(fallback: query)
        } else if try await RequestReading.bodyText(request).isEmpty, let query = request.uri.query, !query.isEmpty {
            return try RequestReading.query(request)  // tolerated: parameters in the query string only
        }
        throw AppleError(
            settings.wrongContentTypeError.rawValue, reason: "Content-Type must be application/x-www-form-urlencoded")
    }

    private func revoke(_ form: FormParameters, state: MockState, active: ActiveScenario, journal: JournalDraft?)
        async throws -> Response
    {
        let client = try await ClientAuthentication.authenticate(
            clientId: try form.field("client_id"), secret: try form.field("client_secret"), in: active,
            journal: journal
        ).client
        guard let (token, hint) = try Self.token(in: form, settings: active.world.settings) else {
            logger.notice(
                "revoke with refresh_token= instead of token= ignored (revokeRefreshTokenParameter: ignore)",
                metadata: ["idp.client_id": .string(client.id)])
            return Responses.emptyOK()
        }
        let revokedUser = try await Revocation.revoke(
            token: token, hint: hint, client: client, state: state, active: active)
        journal?.note(userKey: revokedUser)
        logger.info(
            "revoke",
            metadata: ["idp.client_id": .string(client.id), "idp.revoked": .stringConvertible(revokedUser != nil)])
        return Responses.emptyOK()
    }

    /// The token to revoke and its hint: `token=`, or else, as the `revokeRefreshTokenParameter`
    /// setting says, a `refresh_token=` some libraries send instead (`nil`: answer 200, revoke nothing).
    private static func token(in form: FormParameters, settings: MockSettings) throws(AppleError) -> (
        String, String?
    )? {
        if let token = try form.field("token") { return (token, try form.field("token_type_hint")) }
        guard let misnamed = try form.field("refresh_token") else { throw .invalidRequest("token is missing") }
        switch settings.revokeRefreshTokenParameter {
        case .refuse:
            throw .invalidRequest("token is missing (the request sent refresh_token=, which Apple documents as token=)")
        case .ignore: return nil
        case .accept: return (misnamed, "refresh_token")
        }
    }
}
