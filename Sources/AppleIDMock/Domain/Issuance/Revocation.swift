#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What `/auth/revoke` does, in one store step: ends the consent behind a token and, when the
/// `notifyOnRevokeEndpoint` setting asks for it, queues the `consent-revoked` notification.
enum Revocation {
    /// Revokes `token` (hinted as `hint`) for `client`; the user whose consent ended, if any.
    static func revoke(
        token: String, hint: String?, client: World.Client, state: MockState, active: ActiveScenario
    ) async throws -> String? {
        let now = active.now
        return try await state.withSession(active) { session, world in
            let revoked = try await session.revoke(token: token, clientId: client.id, hint: hint, now: now)
            if let revoked, world.settings.notifyOnRevokeEndpoint, let user = world.users[revoked] {
                // `notifyOnRevokeEndpoint`: whether Apple sends consent-revoked here is not confirmed.
                let draft = NotificationDraft(
                    appGroupId: client.appGroupId, kind: .consentRevoked,
                    sub: world.subject(of: user, teamId: client.teamId), email: nil, eventTime: now)
                try await state.emit([draft], in: session, active: active)
            }
            return revoked
        }
    }
}
