import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import ServiceLifecycle

/// Builds the mock's router: Apple's endpoints, the control plane and `/health`.
func buildRouter(services: MockServices) -> Router<MockRequestContext> {
    let router = Router(context: MockRequestContext.self)
    router.add(middleware: ErrorShieldMiddleware(services: services))
    // The log level is fixed at start-up; below debug the middleware would only pass each request on.
    if services.logger.logLevel <= .debug { router.add(middleware: RequestLogMiddleware(logger: services.logger)) }
    router.add(middleware: AdminAccessMiddleware(services: services))
    router.add(middleware: DueEventsMiddleware(services: services))
    // Outside AppleCallMiddleware, so that the answers of fault rules carry it too.
    router.add(middleware: AppleServerHeaderMiddleware())
    router.add(middleware: AppleCallMiddleware(services: services))
    let health = Responses.encodedJSON(["status": "ok"])
    router.get("/health") { _, _ in Responses.appleJSON(body: health) }
    router.head("/health") { _, _ in Responses.appleJSON(body: health).createHeadResponse() }
    KeysController(services: services).addRoutes(to: router)
    AuthorizeController(services: services).addRoutes(to: router)
    TokenController(services: services).addRoutes(to: router)
    RevokeController(services: services).addRoutes(to: router)
    MigrationController(services: services).addRoutes(to: router)
    AdminController(services: services).addRoutes(to: router)
    NativeController(services: services).addRoutes(to: router)
    LifecycleController(services: services).addRoutes(to: router)
    TransfersController(services: services).addRoutes(to: router)
    FaultsController(services: services).addRoutes(to: router)
    KeysAdminController(services: services).addRoutes(to: router)
    JournalController(services: services).addRoutes(to: router)
    MintController(services: services).addRoutes(to: router)
    OpenAPIController().addRoutes(to: router)
    UsersController(services: services).addRoutes(to: router)
    MailController(services: services).addRoutes(to: router)
    DashboardController().addRoutes(to: router)
    return router
}

/// Builds the whole server for `configuration`: opens the state store, loads and checks scenarios
/// and keys (throwing every problem, so it never starts half-configured), then wires the router and
/// the background services. The CLI, the tests and any Swift test suite embedding the mock all
/// start here.
public func buildApplication(
    configuration: ServerConfiguration, clock: MockClock = MockClock(),
    onListening: (@Sendable (_ host: String, _ port: Int) async -> Void)? = nil,
    onMailListening: (@Sendable (_ port: Int) -> Void)? = nil
) async throws -> some ApplicationProtocol {
    var logger = Logger.deferringMetadata(label: "apple-id-mock")
    logger.logLevel = configuration.logLevel
    // Before the store opens, so that a refusal leaves nothing open.
    let tls = try configuration.tls.map { files throws(TLSSetupError) in try TLSSetup.load(files) }
    if let warning = tls?.warning { logger.warning("\(warning)") }
    // Clamped: a configuration built in code may hold anything (the CLI checks 0.1...3600).
    let idleSeconds = configuration.idleTimeoutSeconds.isFinite ? configuration.idleTimeoutSeconds : 30
    let idleTimeout = TimeAmount.milliseconds(Int64(min(max(idleSeconds, 0.1), 86_400) * 1000))
    let server = HTTPServerBuilder.loopBoundHTTP1(
        configuration: .init(
            additionalChannelHandlers: [ExpectContinueHandler(), FlushCoalescingHandler()], idleTimeout: idleTimeout),
        tls: tls?.configuration)
    let opened = try await StoreOpener.open(configuration.state, logger: logger)
    let services: MockServices
    do {
        services = try await MockServices.load(
            configuration: configuration, store: opened.store, clock: clock, logger: logger)
    } catch {
        await opened.close()
        throw error
    }
    let mailServices: [any Service]
    do {
        mailServices = try await SMTPServer.services(
            for: configuration, services: services, tls: tls?.configuration, onListening: onMailListening)
    } catch {
        await opened.close()
        throw error
    }
    if configuration.adminToken == nil, !AdminAccessMiddleware.isLoopback(configuration.host) {
        logger.warning(
            "bound to \(configuration.host) without an admin token: anyone who reaches this port can steer the mock (set --admin-token or APPLE_ID_MOCK_ADMIN_TOKEN)"
        )
    }
    return Application(
        router: buildRouter(services: services),
        server: server,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
        services: opened.services + [
            NotificationDeliveryService(services: services), HousekeepingService(services: services),
            JournalService(services: services),
        ] + mailServices,
        onServerRunning: { channel in
            await onListening?(configuration.host, channel.localAddress?.port ?? configuration.port)
        },
        logger: logger)
}
