import Foundation
import Hummingbird

/// `POST /auth/revoke`: ends the consent behind a refresh or access token. Answers `200` with an
/// empty body whether or not anything was revoked, as Apple does; parameters may also come by query.
struct RevokeController: Sendable {
    let services: MockServices

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.post("/auth/revoke") { request, _ in await self.revoke(request) }
    }

    private func revoke(_ request: Request) async -> Response {
        do {
            let active = try await services.state.current()
            let body = try await RequestReading.bodyText(request)
            let form: FormParameters
            if RequestReading.isForm(request) {
                // The query only fills in what the body lacks; a malformed query does not spoil a good body.
                let query = (try? RequestReading.query(request)) ?? FormParameters(pairs: [])
                form = try RequestReading.form(body).merging(fallback: query)
            } else if body.isEmpty, let query = request.uri.query, !query.isEmpty {
                form = try RequestReading.query(request)  // tolerated: parameters in the query string only
            } else {
                throw OAuthError(
                    active.world.settings.wrongContentTypeError.rawValue,
                    reason: "Content-Type must be application/x-www-form-urlencoded")
            }
            let client = try await services.authenticateClient(form, in: active)
            guard let token = try form.field("token") else { throw OAuthError.invalidRequest("token is missing") }
            let hint = try form.field("token_type_hint")
            let now = active.now
            let revokedUser = try await services.state.withSession(active) { session, _ in
                try await session.revoke(token: token, clientId: client.id, hint: hint, now: now)
            }
            if let revokedUser, active.world.settings.notifyOnRevokeEndpoint {
                try await notifyRevocation(userKey: revokedUser, client: client, active: active)
            }
            services.logger.info(
                "revoke",
                metadata: ["idp.client_id": .string(client.id), "idp.revoked": .stringConvertible(revokedUser != nil)])
            return Responses.emptyOK()
        } catch {
            return Responses.oauthError(services.refusal(error, endpoint: "revoke"))
        }
    }

    /// Sends `consent-revoked` for a consent `/auth/revoke` ended (the `notifyOnRevokeEndpoint` switch:
    /// whether Apple does so is not confirmed).
    private func notifyRevocation(userKey: String, client: World.Client, active: ActiveScenario) async throws {
        let world = active.world
        guard let user = world.users[userKey] else { return }
        let draft = NotificationDraft(
            appGroupId: client.appGroupId, kind: .consentRevoked, sub: world.subject(of: user, teamId: client.teamId),
            email: nil, eventTime: active.now)
        try await services.state.emit([draft], active: active)
    }
}
