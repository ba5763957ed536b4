import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import ServiceLifecycle

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
        responder: NamespacePrefixResponder(router: buildRouter(services: services).buildResponder()),
        server: server,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
        services: opened.services + [
            NotificationDeliveryService(namespaces: services.namespaces, journal: services.journal, logger: logger),
            HousekeepingService(namespaces: services.namespaces, logger: logger),
            JournalService(state: services.state, journal: services.journal, logger: logger),
            StoreWatchService(store: services.state.base, logger: logger),
            ConformanceService(
                runs: services.conformance,
                runner: ConformanceRunner(
                    namespaces: services.namespaces, journal: services.journal, arms: services.conformance.arms,
                    attackerFetches: services.conformance.attackerFetches, logger: logger)),
        ] + mailServices,
        onServerRunning: { channel in
            await onListening?(configuration.host, channel.localAddress?.port ?? configuration.port)
        },
        logger: logger)
}
