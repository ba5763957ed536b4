import Synchronization

/// What the control plane tells about the relay while the server runs: where SMTP listens (known
/// once it is bound) and where messages are forwarded and replies sent.
final class MailRuntime: Sendable {
    /// The configuration the server started with.
    let configuration: MailConfiguration
    private let port = Mutex<Int?>(nil)

    init(configuration: MailConfiguration = MailConfiguration()) {
        self.configuration = configuration
    }

    /// The port SMTP listens on, once bound (`nil`: SMTP is off).
    var smtpPort: Int? { port.withLock { $0 } }

    /// Records the bound port.
    func listening(on port: Int) {
        self.port.withLock { $0 = port }
    }
}
