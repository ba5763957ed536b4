import Logging
import ServiceLifecycle

/// Sweeps codes and tokens that expired on the mock's clock, without waiting for traffic: after the
/// clock moves forward, the next sweep frees them. A `Service`, so it stops with the server.
struct HousekeepingService: Service {
    let state: MockState
    let logger: Logger
    /// How often it sweeps.
    var interval: Duration = .seconds(1)

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let swept = try await state.sweep()
                    if swept > 0 {
                        logger.debug(
                            "swept expired grants", metadata: ["idp.count": .stringConvertible(swept)])
                    }
                } catch  where !Task.isCancelled {  // shutdown cancels the sweep under way: no outage
                    logger.debug("sweep: state store unavailable", metadata: ["error": "\(error)"])
                }
                try await Task.sleep(for: interval)
            }
        }
    }
}
