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

    public init(runtime: MockRuntime, clock: MockClock, minter: TokenMinter, publicBaseURL: String?, logger: Logger) {
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
            publicBaseURL: configuration.publicBaseURL, logger: logger)
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
