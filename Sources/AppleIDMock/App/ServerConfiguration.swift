import Logging

/// Everything the server needs to start, parsed by the CLI from flags and environment variables
/// (or built directly by Swift code embedding the mock in its own tests).
public struct ServerConfiguration: Sendable {
    /// The interface to bind (`0.0.0.0` in containers).
    public var host: String
    /// The port to bind; 0 picks a free one.
    public var port: Int
    /// The URL clients reach the server at, used in discovery and HTML forms; `nil` uses the request's Host.
    public var publicBaseURL: String?
    /// The folder of scenario files.
    public var scenariosDirectory: String
    /// The folder holding `signing/*.pem` and `developer/AuthKey_*.p8`.
    public var keysDirectory: String
    /// The scenario active at start-up.
    public var scenario: String
    /// The log level.
    public var logLevel: Logger.Level
    /// Where the state lives (`--state`).
    public var state: StoreLocation
    /// The bearer token every `/__admin/*` call needs (`--admin-token`); `nil`: none.
    public var adminToken: String?
    /// How long a connection may sit idle, or take to send a request's headers, before it is closed.
    public var idleTimeoutSeconds: Double
    /// The certificate and key to answer HTTPS with (`--tls`); `nil`: plain HTTP.
    public var tls: TLSFiles?
    /// The private email relay: SMTP port, forward and outbound servers (off by default).
    public var mail = MailConfiguration()

    /// The defaults, for Swift code and for the CLI (`ServeOptions` names them in its help).
    public enum Defaults {
        public static let host = "127.0.0.1"
        public static let port = 8080
        public static let scenariosDirectory = "scenarios"
        public static let keysDirectory = "keys"
        public static let scenario = "default"
        public static let logLevel = Logger.Level.notice
        public static let idleTimeoutSeconds: Double = 30
    }

    public init(
        host: String = Defaults.host, port: Int = Defaults.port, publicBaseURL: String? = nil,
        scenariosDirectory: String = Defaults.scenariosDirectory,
        keysDirectory: String = Defaults.keysDirectory, scenario: String = Defaults.scenario,
        logLevel: Logger.Level = Defaults.logLevel,
        state: StoreLocation = .memory, adminToken: String? = nil,
        idleTimeoutSeconds: Double = Defaults.idleTimeoutSeconds,
        tls: TLSFiles? = nil
    ) {
        self.tls = tls
        self.state = state
        self.adminToken = adminToken
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.host = host
        self.port = port
        self.publicBaseURL = publicBaseURL
        self.scenariosDirectory = scenariosDirectory
        self.keysDirectory = keysDirectory
        self.scenario = scenario
        self.logLevel = logLevel
    }
}
