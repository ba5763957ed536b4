import AppleIDMock
import ArgumentParser
import Synchronization

/// The email relay's flags of `serve`: the SMTP port (off unless given) and the servers relayed
/// messages are copied to and replies sent through.
struct MailOptions: ParsableArguments {
    @Option(name: .customLong("smtp-port"), help: ArgumentHelp(ServeOptions.smtpPort.help))
    var smtpPort: Int?

    @Option(name: .customLong("smtp-forward"), help: ArgumentHelp(ServeOptions.smtpForward.help))
    var smtpForward: String?

    @Option(name: .customLong("smtp-outbound"), help: ArgumentHelp(ServeOptions.smtpOutbound.help))
    var smtpOutbound: String?

    /// The mail configuration from the flags, else the environment.
    func resolve() throws -> MailConfiguration {
        var configuration = MailConfiguration()
        if let text = smtpPort.map(String.init) ?? EnvironmentDefaults.value(EnvironmentDefaults.smtpPort) {
            guard let port = Int(text), (0...65_535).contains(port) else {
                throw ValidationError("SMTP port must be 0...65535, found \(text)")
            }
            configuration.smtpPort = port
        }
        configuration.forward = try address(
            smtpForward ?? EnvironmentDefaults.value(EnvironmentDefaults.smtpForward), name: "--smtp-forward")
        configuration.outbound = try address(
            smtpOutbound ?? EnvironmentDefaults.value(EnvironmentDefaults.smtpOutbound), name: "--smtp-outbound")
        return configuration
    }

    private func address(_ text: String?, name: String) throws -> SMTPAddress? {
        guard let text else { return nil }
        guard let address = SMTPAddress(parsing: text) else {
            throw ValidationError("\(name) must be host:port (e.g. localhost:1025), found \"\(text)\"")
        }
        return address
    }
}

/// The SMTP port once bound, for the start-up line written when HTTP listens.
final class BoundPort: Sendable {
    private let port = Mutex<Int?>(nil)

    var value: Int? {
        get { port.withLock { $0 } }
        set { port.withLock { $0 = newValue } }
    }
}
