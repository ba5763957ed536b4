import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `GET /__admin/consents`: every consent in the state, with its subject and relay forwarding.
struct ConsentsController: Sendable {

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.get(RouterPath(AdminPath.consents)) { _, context in try await self.consents(context) }
    }

    private func consents(_ context: WorldRequestContext) async throws -> Response {
        let state = context.world
        /// A consent as shown.
        struct ConsentView: Encodable {
            var userKey: String
            var appGroupId: String
            var sub: String
            var status: Consent.Status
            var scopes: [String]
            var hidesEmail: Bool
            /// Whether mail to the relay address is forwarded (Hide My Email users only).
            var relayForwarding: Bool?
            var authorizedAt: Int
            var revokedAt: Int?
        }
        let active = try await context.current()
        let views = try await state.withSession(active) { session, world in
            var views: [ConsentView] = []
            for consent in try await session.allConsents() {
                guard let user = world.users[consent.userKey], let group = world.appGroups[consent.appGroupId] else {
                    continue
                }
                let forwarding =
                    consent.grantsEmail && consent.hidesEmail
                    ? try await session.relayForwarding(userKey: consent.userKey, appGroupId: consent.appGroupId)
                    : nil
                views.append(
                    ConsentView(
                        userKey: consent.userKey, appGroupId: consent.appGroupId,
                        sub: world.subject(of: user, teamId: group.teamId), status: consent.status,
                        scopes: consent.scopes,
                        hidesEmail: consent.hidesEmail,
                        relayForwarding: forwarding,
                        authorizedAt: Int(consent.authorizedAt.timeIntervalSince1970),
                        revokedAt: consent.revokedAt.map { Int($0.timeIntervalSince1970) }))
            }
            return views
        }
        return Responses.adminJSON(["consents": views])
    }
}
