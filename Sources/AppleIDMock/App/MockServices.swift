import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the server is made of once loaded: the state, the journal, the configuration, and where the
/// server is reached. `buildRouter` hands each controller and middleware the parts it uses.
struct MockServices: Sendable {
    /// Scenarios, settings, clock and session, behind the store: the default namespace's world.
    let state: MockState
    /// Every namespace's world, the default's included.
    let namespaces: Namespaces
    /// Buffers journal entries for the store.
    let journal: JournalRecorder
    /// The configured base URL (no trailing slash), or `nil` to use the request's Host.
    let publicBaseURL: String?
    /// Who may call the control plane.
    var adminAccess: AdminAccessMiddleware.Access {
        .init(adminToken: adminToken, host: host, servesTLS: servesTLS, publicBaseURL: publicBaseURL)
    }
    /// Where clients reach the server.
    var address: PublicAddress { PublicAddress(configured: publicBaseURL, servesTLS: servesTLS) }
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
    /// Backend conformance runs, and the codes they armed.
    let conformance = ConformanceRuns()

    init(
        state: MockState, publicBaseURL: String?, keysDirectory: String, adminToken: String? = nil,
        host: String = "127.0.0.1", servesTLS: Bool = false, mail: MailRuntime = MailRuntime(),
        wallClock: WallClock = .system, logger: Logger
    ) {
        self.mail = mail
        self.servesTLS = servesTLS
        self.keysDirectory = keysDirectory
        self.state = state
        self.namespaces = Namespaces(defaultState: state, clock: wallClock)
        self.journal = JournalRecorder()
        self.publicBaseURL = publicBaseURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.adminToken = adminToken.flatMap { $0.isEmpty ? nil : $0 }
        self.host = host
        self.logger = logger
    }

    /// Loads and checks the scenarios and keys of `configuration` (throwing every problem found) and
    /// opens the state on `store`. `wallClock` keeps the namespace records (a test moves it).
    static func load(
        configuration: ServerConfiguration, store: any StateStore, clock: MockClock, wallClock: WallClock = .system,
        logger: Logger
    ) async throws -> MockServices {
        let keyRing = try SigningKeyRing.load(keysDirectory: configuration.keysDirectory)
        let catalog = try ScenarioCatalog(
            bundled: try ScenarioLoader.loadDirectory(configuration.scenariosDirectory), keyRing: keyRing)
        let state = try await MockState.open(
            store: store, catalog: catalog, initialScenario: configuration.scenario, clock: clock, logger: logger)
        let services = MockServices(
            state: state, publicBaseURL: configuration.publicBaseURL, keysDirectory: configuration.keysDirectory,
            adminToken: configuration.adminToken, host: configuration.host, servesTLS: configuration.tls != nil,
            mail: MailRuntime(configuration: configuration.mail), wallClock: wallClock, logger: logger)
        try await services.namespaces.refresh()
        return services
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
