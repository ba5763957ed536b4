import Foundation

/// The environment variables the CLI reads when a flag is not given (flag, then variable, then default).
enum EnvironmentDefaults {
    static let host = "APPLE_ID_MOCK_HOST"
    static let port = "APPLE_ID_MOCK_PORT"
    static let publicURL = "APPLE_ID_MOCK_PUBLIC_URL"
    static let scenariosDir = "APPLE_ID_MOCK_SCENARIOS_DIR"
    static let keysDir = "APPLE_ID_MOCK_KEYS_DIR"
    static let scenario = "APPLE_ID_MOCK_SCENARIO"
    static let logLevel = "APPLE_ID_MOCK_LOG_LEVEL"
    static let state = "APPLE_ID_MOCK_STATE"
    static let adminToken = "APPLE_ID_MOCK_ADMIN_TOKEN"
    static let idleTimeout = "APPLE_ID_MOCK_IDLE_TIMEOUT"
    static let tls = "APPLE_ID_MOCK_TLS"
    static let tlsCert = "APPLE_ID_MOCK_TLS_CERT"
    static let tlsKey = "APPLE_ID_MOCK_TLS_KEY"
    static let smtpPort = "APPLE_ID_MOCK_SMTP_PORT"
    static let smtpForward = "APPLE_ID_MOCK_SMTP_FORWARD"
    static let smtpOutbound = "APPLE_ID_MOCK_SMTP_OUTBOUND"

    /// The value of `name`, if set and not empty.
    static func value(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }
}
