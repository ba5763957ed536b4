import Foundation
import Logging

/// What every controller needs: the state, the journal, the configuration, and where the server is reached.
struct MockServices: Sendable {
    /// Scenarios, settings, clock and session, behind the store.
    let state: MockState
    /// Buffers journal entries for the store.
    let journal: JournalRecorder
    /// The configured base URL (no trailing slash), or `nil` to use the request's Host.
    let publicBaseURL: String?
    /// The server's logger.
    let logger: Logger
    /// Where the bundled developer keys are, for `POST /__admin/client-secret`.
    let keysDirectory: String
    /// The token every `/__admin/*` call must bear, if set.
    let adminToken: String?
    /// The interface the server is bound to (the `Host` check applies on loopback).
    let host: String
    /// Whether the server answers HTTPS (`--tls`).
    let servesTLS: Bool
    /// The private email relay's SMTP listener and servers, as configured and bound.
    let mail: MailRuntime

    init(
        state: MockState, publicBaseURL: String?, keysDirectory: String, adminToken: String? = nil,
        host: String = "127.0.0.1", servesTLS: Bool = false, mail: MailRuntime = MailRuntime(), logger: Logger
    ) {
        self.mail = mail
        self.servesTLS = servesTLS
        self.keysDirectory = keysDirectory
        self.state = state
        self.journal = JournalRecorder()
        self.publicBaseURL = publicBaseURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.adminToken = adminToken.flatMap { $0.isEmpty ? nil : $0 }
        self.host = host
        self.logger = logger
    }

    /// Loads and checks the scenarios and keys of `configuration` (throwing every problem found) and
    /// opens the state on `store`.
    static func load(
        configuration: ServerConfiguration, store: any StateStore, clock: MockClock, logger: Logger
    ) async throws -> MockServices {
        let keyRing = try SigningKeyRing.load(keysDirectory: configuration.keysDirectory)
        let catalog = try ScenarioCatalog(
            bundled: try ScenarioLoader.loadDirectory(configuration.scenariosDirectory), keyRing: keyRing)
        let state = try await MockState.open(
            store: store, catalog: catalog, initialScenario: configuration.scenario, clock: clock, logger: logger)
        return MockServices(
            state: state, publicBaseURL: configuration.publicBaseURL, keysDirectory: configuration.keysDirectory,
            adminToken: configuration.adminToken, host: configuration.host, servesTLS: configuration.tls != nil,
            mail: MailRuntime(configuration: configuration.mail), logger: logger)
    }

    /// The state in force for a request: as read when it started, or read now (also when there is
    /// no request context: after a change, a handler lists the state it made).
    func active(_ context: MockRequestContext?) async throws -> ActiveScenario {
        if let active = context?.active { return active }
        return try await state.current()
    }

    /// How often an `/auth/*` request is run again when resets keep landing while it runs.
    static let rerunsAfterReset = 8

    /// Runs an `/auth/*` request in the state in force; when a reset or scenario switch lands between
    /// reading that state and the request's step on the session, runs it again in the new state, so it
    /// is answered in Apple's vocabulary as if it had come after the reset (a wiped code or token is
    /// `invalid_grant`), never with an undocumented error.
    func rerunningAfterResets<T>(
        _ context: MockRequestContext, _ body: (ActiveScenario) async throws -> T
    ) async throws -> T {
        try await rerunningAfterResets(from: context.active, body)
    }

    /// `rerunningAfterResets(_:_:)` from the state `initial` read earlier (`nil`: read it now).
    func rerunningAfterResets<T>(
        from initial: ActiveScenario?, _ body: (ActiveScenario) async throws -> T
    ) async throws -> T {
        var active: ActiveScenario
        if let initial { active = initial } else { active = try await state.current() }
        for _ in 0..<Self.rerunsAfterReset {
            do {
                return try await body(active)
            } catch is SessionChanged {
                active = try await state.current()
            }
        }
        return try await body(active)
    }

    /// The OAuth error for any failure of an `/auth/*` handler, logged with its reason. A store outage
    /// is a 503 naming the cause; anything else unexpected becomes `invalid_request`, never a 500.
    func refusal(_ error: any Error, endpoint: String) -> OAuthError {
        let oauthError: OAuthError
        if let error = error as? OAuthError {
            oauthError = error
        } else if let unavailable = error as? StoreUnavailable {
            oauthError = OAuthError.unavailable(unavailable)
        } else if error is SessionChanged {
            // Resets kept landing on every rerun: whatever the request named was wiped.
            oauthError = .invalidGrant(nil, reason: "the scenario was reset or switched while this request ran")
        } else {
            oauthError = .invalidRequest("unexpected failure: \(error)")
        }
        logRefusal(oauthError, endpoint: endpoint)
        return oauthError
    }

    /// Logs why a request was refused (Apple's body stays bare; the reason is here).
    func logRefusal(_ error: OAuthError, endpoint: String) {
        JournalDraft.current?.note(refusal: error.code, reason: error.logReason ?? error.description)
        logger.notice(
            "request refused",
            metadata: [
                "idp.endpoint": .string(endpoint), "idp.error": .string(error.code),
                "idp.reason": .string(error.logReason ?? error.code),
            ])
    }
}

/// What logs show of the services (ServiceLifecycle logs each service it starts, field by field
/// unless told otherwise): names only, never the admin token.
extension MockServices: CustomStringConvertible, CustomDebugStringConvertible {
    var description: String {
        "MockServices(host: \(host), tls: \(servesTLS), admin token: \(adminToken.map { "sha256:" + Fingerprint.of($0) } ?? "none"))"
    }
    var debugDescription: String { description }
}

extension HousekeepingService: CustomStringConvertible {
    var description: String { "HousekeepingService" }
}

extension NotificationDeliveryService: CustomStringConvertible {
    var description: String { "NotificationDeliveryService" }
}

extension JournalService: CustomStringConvertible {
    var description: String { "JournalService" }
}
