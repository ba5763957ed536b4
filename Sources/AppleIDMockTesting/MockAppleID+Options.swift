import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MockAppleID {
    /// What the mock starts with. The defaults are this package's own `scenarios/` and `keys/`
    /// (found beside the kit's sources, where SwiftPM checked the package out) and the `default`
    /// scenario, on the wall clock.
    public struct Options: Sendable {
        /// The folder of scenario files.
        public var scenariosDirectory: String
        /// The folder holding `signing/*.pem` and `developer/AuthKey_*.p8`.
        public var keysDirectory: String
        /// The scenario active at start.
        public var scenario: String
        /// Stops the mock's clock at this instant (move it with `advanceClock(by:)`); `nil`: the wall clock.
        public var startingAt: Date?
        /// The mock's log level (`warning` keeps test output quiet).
        public var logLevel: Logger.Level
        /// The private email relay's SMTP port (0: a free one, read with `smtpPort()`); `nil`: off.
        public var smtpPort: Int?
        /// Where relayed messages are also sent and replies go (`host:port`, e.g. a Mailpit).
        public var smtpForward: String?

        public init(
            scenariosDirectory: String = BundledFiles.scenariosDirectory,
            keysDirectory: String = BundledFiles.keysDirectory, scenario: String = "default",
            startingAt: Date? = nil, logLevel: Logger.Level = .warning, smtpPort: Int? = nil,
            smtpForward: String? = nil
        ) {
            self.smtpPort = smtpPort
            self.smtpForward = smtpForward
            self.scenariosDirectory = scenariosDirectory
            self.keysDirectory = keysDirectory
            self.scenario = scenario
            self.startingAt = startingAt
            self.logLevel = logLevel
        }
    }

    /// The scenarios and keys that ship with apple-id-mock, in its package checkout.
    public enum BundledFiles {
        /// The package's root folder: three levels above this file (`Sources/AppleIDMockTesting/…`).
        public static let packageRoot: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
        /// `scenarios/` of the package: `default`, `private-relay`, `transfer`, …
        public static let scenariosDirectory = packageRoot + "/scenarios"
        /// `keys/` of the package: the signing keys and the developer keys of the bundled teams.
        public static let keysDirectory = packageRoot + "/keys"
    }
}
