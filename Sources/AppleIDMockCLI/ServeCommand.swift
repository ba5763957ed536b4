import AppleIDMock
import ArgumentParser
import Foundation
import Hummingbird
import Logging

/// `apple-id-mock serve`: runs the server until interrupted.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the mock server.")

    @Option(help: ArgumentHelp(ServeOptions.host.help))
    var host: String?

    @Option(help: ArgumentHelp(ServeOptions.port.help))
    var port: Int?

    @Option(name: .customLong("public-url"), help: ArgumentHelp(ServeOptions.publicURL.help))
    var publicURL: String?

    @Option(name: .customLong("log-level"), help: ArgumentHelp(ServeOptions.logLevel.help))
    var logLevel: String?

    @Option(help: ArgumentHelp(ServeOptions.state.help))
    var state: String?

    @Option(name: .customLong("admin-token"), help: ArgumentHelp(ServeOptions.adminToken.help))
    var adminToken: String?

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp(ServeOptions.idleTimeout.help))
    var idleTimeout: Double?

    @Flag(help: ArgumentHelp(ServeOptions.tls.help))
    var tls = false

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp(ServeOptions.tlsCert.help))
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp(ServeOptions.tlsKey.help))
    var tlsKey: String?

    @OptionGroup var mail: MailOptions

    @OptionGroup var locations: LocationOptions

    func run() async throws {
        let configuration = try resolve()
        try locations.requireFolders()
        MemoryTuning.apply()
        let application: any ApplicationProtocol
        let smtpPort = BoundPort()
        do {
            application = try await buildApplication(
                configuration: configuration,
                onListening: { host, port in
                    // Written straight to the file handle: print() may sit in a buffer when stdout is a pipe.
                    let scheme = configuration.tls == nil ? "http" : "https"
                    let address = host.contains(":") ? "[\(host)]" : host
                    let smtp = smtpPort.value.map { ", SMTP relay on smtp://\(address):\($0)" } ?? ""
                    let line =
                        "apple-id-mock listening on \(scheme)://\(address):\(port) (state \(configuration.state), issuer https://appleid.apple.com\(smtp))\(tokenWarning)\n"
                    FileHandle.standardOutput.write(Data(line.utf8))
                },
                onMailListening: { port in smtpPort.value = port })
        } catch let error as SMTPListenError {
            FileHandle.standardError.write(Data("apple-id-mock: \(error.description)\n".utf8))
            throw ExitCode(1)
        } catch let error as ScenarioError {
            FileHandle.standardError.write(Data("apple-id-mock: refusing to start:\n\(error.description)\n".utf8))
            throw ExitCode(1)
        } catch let error as TLSSetupError {
            FileHandle.standardError.write(Data("apple-id-mock: \(error.description)\n".utf8))
            throw ExitCode(1)
        } catch let error as StoreOpeningError {
            FileHandle.standardError.write(Data("apple-id-mock: \(error.description)\n".utf8))
            throw ExitCode(1)
        } catch let error as StoreUnavailable {
            // The database went away between the schema check and reading the stored state.
            let line = "apple-id-mock: cannot open state store \(configuration.state): \(error.cause)\n"
            FileHandle.standardError.write(Data(line.utf8))
            throw ExitCode(1)
        }
        try await application.runService()
    }

    /// Appended to the start-up line when the admin token came as `--admin-token`: every local user
    /// reads a process's arguments (`ps`, `/proc/<pid>/cmdline`), not its environment.
    private var tokenWarning: String {
        guard adminToken != nil else { return "" }
        return
            "; warning: the admin token came as --admin-token, which every local user can read in the process list: pass it in \(EnvironmentDefaults.adminToken) instead"
    }

    private func resolve() throws -> ServerConfiguration {
        let portText =
            port.map(String.init) ?? EnvironmentDefaults.value(EnvironmentDefaults.port)
            ?? String(ServerConfiguration.Defaults.port)
        guard let port = Int(portText), (0...65_535).contains(port) else {
            throw ValidationError("port must be 0...65535, found \(portText)")
        }
        let levelText =
            logLevel ?? EnvironmentDefaults.value(EnvironmentDefaults.logLevel)
            ?? ServerConfiguration.Defaults.logLevel.rawValue
        guard let level = Logger.Level(rawValue: levelText) else {
            throw ValidationError(
                "log level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let stateText = state ?? EnvironmentDefaults.value(EnvironmentDefaults.state) ?? ServeOptions.state.defaultText
        let location: StoreLocation
        do {
            location = try StoreLocation(parsing: stateText)
        } catch {
            FileHandle.standardError.write(Data("apple-id-mock: \(error.description)\n".utf8))
            throw ExitCode(1)
        }
        let idleText =
            idleTimeout.map { String($0) } ?? EnvironmentDefaults.value(EnvironmentDefaults.idleTimeout)
            ?? String(ServerConfiguration.Defaults.idleTimeoutSeconds)
        guard let idle = Double(idleText), idle >= 0.1, idle <= 3_600 else {
            throw ValidationError("idle timeout must be 0.1...3600 seconds, found \(idleText)")
        }
        var configuration = ServerConfiguration(
            host: host ?? EnvironmentDefaults.value(EnvironmentDefaults.host) ?? ServerConfiguration.Defaults.host,
            port: port,
            publicBaseURL: publicURL ?? EnvironmentDefaults.value(EnvironmentDefaults.publicURL),
            scenariosDirectory: locations.resolvedScenariosDir, keysDirectory: locations.resolvedKeysDir,
            scenario: locations.resolvedScenario, logLevel: level, state: location,
            adminToken: adminToken ?? EnvironmentDefaults.value(EnvironmentDefaults.adminToken),
            idleTimeoutSeconds: idle, tls: try resolveTLS())
        configuration.mail = try mail.resolve()
        return configuration
    }

    /// `--tls-cert` with `--tls-key` (your files, which imply HTTPS), else `--tls` (the bundled test
    /// certificate), else none; each from its flag or else its environment variable.
    private func resolveTLS() throws -> TLSFiles? {
        let variable = EnvironmentDefaults.value(EnvironmentDefaults.tls)
        let enabled: Bool?
        switch variable?.lowercased() {
        case nil: enabled = nil
        case "1", "true", "yes", "on": enabled = true
        case "0", "false", "no", "off": enabled = false
        default:
            throw ValidationError(
                "\(EnvironmentDefaults.tls) must be 1, true, yes, on, 0, false, no or off; found \"\(variable ?? "")\"")
        }
        let cert = tlsCert ?? EnvironmentDefaults.value(EnvironmentDefaults.tlsCert)
        let key = tlsKey ?? EnvironmentDefaults.value(EnvironmentDefaults.tlsKey)
        let certSource = tlsCert != nil ? "--tls-cert" : EnvironmentDefaults.tlsCert
        let keySource = tlsKey != nil ? "--tls-key" : EnvironmentDefaults.tlsKey
        switch (cert, key) {
        case (let cert?, let key?):
            return TLSFiles(certificateChainPath: cert, privateKeyPath: key)
        case (.some, nil):
            throw ValidationError(
                "\(certSource) needs the certificate's private key too (--tls-key or \(EnvironmentDefaults.tlsKey))")
        case (nil, .some):
            throw ValidationError(
                "\(keySource) needs the certificate chain it belongs to (--tls-cert or \(EnvironmentDefaults.tlsCert))")
        case (nil, nil):
            return tls || enabled == true ? TLSFiles.bundled(keysDirectory: locations.resolvedKeysDir) : nil
        }
    }
}
