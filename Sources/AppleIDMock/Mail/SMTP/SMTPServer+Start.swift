import Logging
import NIOSSL
import ServiceLifecycle

/// Why the SMTP listener cannot start (the port is taken, say); the server refuses to start.
public struct SMTPListenError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

extension SMTPServer {
    /// The SMTP service for `configuration`, bound on the HTTP host (none when `--smtp-port` is not
    /// given); `onListening` learns the bound port before the HTTP server starts.
    static func services(
        for configuration: ServerConfiguration, services: MockServices, tls: TLSConfiguration?,
        onListening: (@Sendable (Int) -> Void)?
    ) async throws -> [any Service] {
        guard let port = configuration.mail.smtpPort else { return [] }
        var limits = SMTPLimits()
        let idle = configuration.idleTimeoutSeconds.isFinite ? configuration.idleTimeoutSeconds : 30
        limits.idleMilliseconds = Int64(min(max(idle, 0.1), 86_400) * 1000)
        let server: SMTPServer
        do {
            server = try await SMTPServer.bind(
                host: configuration.host, port: port, desk: MailDesk(services: services), limits: limits, tls: tls,
                logger: services.logger)
        } catch {
            throw SMTPListenError(
                description: "cannot listen for SMTP on \(configuration.host):\(port) (--smtp-port): \(error)")
        }
        services.mail.listening(on: server.port)
        onListening?(server.port)
        return [server]
    }
}

extension SMTPServer: CustomStringConvertible {
    var description: String { "SMTPServer(port: \(port))" }
}
