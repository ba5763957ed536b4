import AppleIDMock

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The environment variables the CLI reads when a flag is not given (flag, then variable, then
/// default), as `ServeOptions` names them.
enum EnvironmentDefaults {
    static let host = ServeOptions.host.variable
    static let port = ServeOptions.port.variable
    static let publicURL = ServeOptions.publicURL.variable
    static let scenariosDir = ServeOptions.scenariosDir.variable
    static let keysDir = ServeOptions.keysDir.variable
    static let scenario = ServeOptions.scenario.variable
    static let logLevel = ServeOptions.logLevel.variable
    static let state = ServeOptions.state.variable
    static let adminToken = ServeOptions.adminToken.variable
    static let idleTimeout = ServeOptions.idleTimeout.variable
    static let tls = ServeOptions.tls.variable
    static let tlsCert = ServeOptions.tlsCert.variable
    static let tlsKey = ServeOptions.tlsKey.variable
    static let smtpPort = ServeOptions.smtpPort.variable
    static let smtpForward = ServeOptions.smtpForward.variable
    static let smtpOutbound = ServeOptions.smtpOutbound.variable

    /// The value of `name`, if set and not empty.
    static func value(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }
}
