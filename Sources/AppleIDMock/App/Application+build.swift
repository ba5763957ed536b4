import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// Builds the mock's router: Apple's endpoints, the control plane and `/health`.
func buildRouter(services: MockServices) -> Router<BasicRequestContext> {
    let router = Router(context: BasicRequestContext.self)
    router.add(middleware: ErrorShieldMiddleware(services: services))
    router.add(middleware: LogRequestsMiddleware(.debug))
    router.add(middleware: DueEventsMiddleware(services: services))
    router.get("/health") { _, _ in Responses.appleJSON(["status": "ok"]) }
    KeysController(services: services).addRoutes(to: router)
    AuthorizeController(services: services).addRoutes(to: router)
    TokenController(services: services).addRoutes(to: router)
    RevokeController(services: services).addRoutes(to: router)
    MigrationController(services: services).addRoutes(to: router)
    AdminController(services: services).addRoutes(to: router)
    NativeController(services: services).addRoutes(to: router)
    LifecycleController(services: services).addRoutes(to: router)
    TransfersController(services: services).addRoutes(to: router)
    return router
}

/// Builds the whole server for `configuration`: opens the state store, loads and checks scenarios
/// and keys (throwing every problem, so it never starts half-configured), then wires the router and
/// the background services. The CLI, the tests and any Swift test suite embedding the mock all
/// start here.
public func buildApplication(
    configuration: ServerConfiguration, clock: MockClock = MockClock(),
    onListening: (@Sendable (_ host: String, _ port: Int) async -> Void)? = nil
) async throws -> some ApplicationProtocol {
    var logger = Logger(label: "apple-id-mock")
    logger.logLevel = configuration.logLevel
    let opened = try await StoreOpener.open(configuration.state, logger: logger)
    let services: MockServices
    do {
        services = try await MockServices.load(
            configuration: configuration, store: opened.store, clock: clock, logger: logger)
    } catch {
        await opened.close()
        throw error
    }
    return Application(
        router: buildRouter(services: services),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
        services: opened.services + [
            NotificationDeliveryService(services: services), HousekeepingService(services: services),
        ],
        onServerRunning: { channel in
            await onListening?(configuration.host, channel.localAddress?.port ?? configuration.port)
        },
        logger: logger)
}
