import Foundation
import Logging

/// What every controller needs: the state, the clock, the signer, and where the server is reached.
public struct MockServices: Sendable {
    /// Scenarios and session state.
    public let runtime: MockRuntime
    /// The mock's time.
    public let clock: MockClock
    /// Signs tokens.
    public let minter: TokenMinter
    /// The configured public base URL (no trailing slash), or `nil` to use the request's Host.
    public let publicBaseURL: String?
    /// The server's logger.
    public let logger: Logger
    /// Server-to-server notifications and their delivery.
    public let outbox = NotificationOutbox()
    /// Where the bundled developer keys are, for `POST /__admin/client-secret`.
    public let keysDirectory: String

    public init(
        runtime: MockRuntime, clock: MockClock, minter: TokenMinter, publicBaseURL: String?, keysDirectory: String,
        logger: Logger
    ) {
        self.keysDirectory = keysDirectory
        self.runtime = runtime
        self.clock = clock
        self.minter = minter
        self.publicBaseURL = publicBaseURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.logger = logger
    }

    /// Loads and checks the scenarios and keys of `configuration`; throws every problem found.
    public static func load(
        configuration: ServerConfiguration, clock: MockClock, logger: Logger
    ) async throws(ScenarioError) -> MockServices {
        let keyRing = try SigningKeyRing.load(keysDirectory: configuration.keysDirectory)
        let scenarios = try ScenarioLoader.loadDirectory(configuration.scenariosDirectory)
        let runtime = try await MockRuntime(scenarios: scenarios, activeName: configuration.scenario, keyRing: keyRing)
        return MockServices(
            runtime: runtime, clock: clock, minter: TokenMinter(keyRing: keyRing),
            publicBaseURL: configuration.publicBaseURL, keysDirectory: configuration.keysDirectory, logger: logger)
    }

    /// Applies the scenario's lifecycle events that are due on the mock's clock.
    public func fireDueEvents() async {
        for fired in await runtime.fireDueEvents(now: clock.now()) {
            await runtime.attachNotifications(await emit(fired.drafts, world: fired.world), to: fired)
        }
    }

    /// Signs and queues the notifications of `drafts`; returns their ids.
    public func emit(_ drafts: [NotificationDraft], world: World) async -> [String] {
        var ids: [String] = []
        for draft in drafts {
            guard let group = world.appGroups[draft.appGroupId] else { continue }
            let now = clock.now()
            let claims = NotificationClaims(
                draft: draft, audience: group.primaryBundleId, now: now, settings: world.settings)
            guard let payload = try? minter.sign(claims, settings: world.settings) else { continue }
            let type = draft.kind.notificationType(world.settings)
            await outbox.enqueue(
                NotificationOutbox.Record(
                    id: claims.jti, appGroupId: group.id, url: group.notificationUrl, type: type, sub: draft.sub,
                    payload: payload, createdAt: now, status: group.notificationUrl == nil ? .noURL : .pending,
                    attempts: [], nextAttemptAt: nil))
            logger.debug(
                "notification queued",
                metadata: ["idp.notification": .string(claims.jti), "idp.payload": .string(payload)])
            ids.append(claims.jti)
        }
        return ids
    }

    /// Clears consents, codes, tokens, events and notifications, keeping the scenario.
    public func reset() async {
        await runtime.resetSession()
        await outbox.clear()
    }

    /// The OAuth error for any failure of an `/auth/*` handler (unexpected ones become `invalid_request`,
    /// never a 500), logged with its reason.
    func refusal(_ error: any Error, endpoint: String) -> OAuthError {
        let oauthError = error as? OAuthError ?? .invalidRequest("unexpected failure: \(error)")
        logRefusal(oauthError, endpoint: endpoint)
        return oauthError
    }

    /// Logs why a request was refused (Apple's body stays bare; the reason is here).
    func logRefusal(_ error: OAuthError, endpoint: String) {
        logger.notice(
            "request refused",
            metadata: [
                "idp.endpoint": .string(endpoint), "idp.error": .string(error.code),
                "idp.reason": .string(error.logReason ?? error.code),
            ])
    }
}
