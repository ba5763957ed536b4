import Logging

/// One option of `apple-id-mock serve`: its flag, its environment variable, its default and what it
/// means, described once. The CLI builds its options' help from it and reads the variable it names;
/// a test holds the README's configuration table and `serve --help` to it.
package struct ServeOption: Sendable {
    /// The flag, e.g. `--host`.
    package let flag: String
    /// The environment variable read when the flag is not given.
    package let variable: String
    /// The default as written for people (`none` when there is none).
    package let defaultText: String
    /// What it does.
    package let meaning: String

    /// The help line: the meaning, then the variable and the default.
    package var help: String { "\(meaning) [env \(variable), default \(defaultText)]" }
}

/// Every option of `apple-id-mock serve`, with the defaults of `ServerConfiguration.Defaults`.
package enum ServeOptions {
    package static let host = ServeOption(
        flag: "--host", variable: "APPLE_ID_MOCK_HOST", defaultText: ServerConfiguration.Defaults.host,
        meaning: "Interface to bind")
    package static let port = ServeOption(
        flag: "--port", variable: "APPLE_ID_MOCK_PORT", defaultText: String(ServerConfiguration.Defaults.port),
        meaning: "Port to bind, 0 for any free port")
    package static let publicURL = ServeOption(
        flag: "--public-url", variable: "APPLE_ID_MOCK_PUBLIC_URL", defaultText: "the request's Host",
        meaning: "Base URL clients use, for discovery and pages")
    package static let scenariosDir = ServeOption(
        flag: "--scenarios-dir", variable: "APPLE_ID_MOCK_SCENARIOS_DIR",
        defaultText: ServerConfiguration.Defaults.scenariosDirectory, meaning: "Scenario files folder")
    package static let keysDir = ServeOption(
        flag: "--keys-dir", variable: "APPLE_ID_MOCK_KEYS_DIR", defaultText: ServerConfiguration.Defaults.keysDirectory,
        meaning: "Keys folder (signing/, developer/)")
    package static let scenario = ServeOption(
        flag: "--scenario", variable: "APPLE_ID_MOCK_SCENARIO", defaultText: ServerConfiguration.Defaults.scenario,
        meaning: "Active scenario name")
    package static let logLevel = ServeOption(
        flag: "--log-level", variable: "APPLE_ID_MOCK_LOG_LEVEL",
        defaultText: ServerConfiguration.Defaults.logLevel.rawValue,
        meaning: "trace, debug, info, notice, warning, error")
    package static let state = ServeOption(
        flag: "--state", variable: "APPLE_ID_MOCK_STATE", defaultText: "memory",
        meaning: "Where state lives: memory, sqlite:PATH or postgres://USER:PASSWORD@HOST:PORT/DB")
    package static let adminToken = ServeOption(
        flag: "--admin-token", variable: "APPLE_ID_MOCK_ADMIN_TOKEN", defaultText: "none",
        meaning:
            "Bearer token every /__admin/* call must send (Authorization: Bearer <token>); prefer the variable, a flag shows in the process list"
    )
    package static let idleTimeout = ServeOption(
        flag: "--idle-timeout", variable: "APPLE_ID_MOCK_IDLE_TIMEOUT",
        defaultText: String(Int(ServerConfiguration.Defaults.idleTimeoutSeconds)),
        meaning: "Seconds a connection may sit idle, or take to send its headers, before it is closed")
    package static let tls = ServeOption(
        flag: "--tls", variable: "APPLE_ID_MOCK_TLS", defaultText: "off",
        meaning:
            "Serve HTTPS with the bundled test certificate for appleid.apple.com, appleid.cdn-apple.com, localhost, 127.0.0.1 and ::1 (keys/tls/, trust keys/tls/ca.pem); the variable takes 1"
    )
    package static let tlsCert = ServeOption(
        flag: "--tls-cert", variable: "APPLE_ID_MOCK_TLS_CERT", defaultText: "none",
        meaning: "Serve HTTPS with this PEM certificate chain (with --tls-key)")
    package static let tlsKey = ServeOption(
        flag: "--tls-key", variable: "APPLE_ID_MOCK_TLS_KEY", defaultText: "none",
        meaning: "The PEM private key of --tls-cert")
    package static let smtpPort = ServeOption(
        flag: "--smtp-port", variable: "APPLE_ID_MOCK_SMTP_PORT", defaultText: "off",
        meaning: "Accept mail for the relay addresses over SMTP on this port of --host, 0 for any free port")
    package static let smtpForward = ServeOption(
        flag: "--smtp-forward", variable: "APPLE_ID_MOCK_SMTP_FORWARD", defaultText: "none",
        meaning:
            "Also send every relayed message, as delivered to the user, to this SMTP server (host:port, e.g. your Mailpit at localhost:1025)"
    )
    package static let smtpOutbound = ServeOption(
        flag: "--smtp-outbound", variable: "APPLE_ID_MOCK_SMTP_OUTBOUND", defaultText: "--smtp-forward",
        meaning: "Send the user's replies (POST /__admin/mail/{id}/reply) through this SMTP server (host:port)")

    /// All of them, in the README's order.
    package static let all = [
        host, port, publicURL, scenariosDir, keysDir, scenario, logLevel, state, adminToken, idleTimeout, tls, tlsCert,
        tlsKey, smtpPort, smtpForward, smtpOutbound,
    ]
}
