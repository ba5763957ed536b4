import Logging
import ServiceLifecycle

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Sweeps codes and tokens that expired on the mock's clock, without waiting for traffic: after the
/// clock moves forward, the next sweep frees them. Writes when each namespace was last used, and
/// removes the namespaces idle longer than their idle time. A `Service`, so it stops with the server.
struct HousekeepingService: Service {
    let namespaces: Namespaces
    let logger: Logger
    /// How often it sweeps.
    var interval: Duration = .seconds(1)

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let swept = try await namespaces.sweep()
                    if swept > 0 {
                        logger.debug(
                            "swept expired grants", metadata: ["idp.count": .stringConvertible(swept)])
                    }
                    _ = try await namespaces.removeIdle()
                } catch  where !Task.isCancelled {  // shutdown cancels the sweep under way: no outage
                    logger.debug("sweep: state store unavailable", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
