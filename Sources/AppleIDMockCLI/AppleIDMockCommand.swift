import AppleIDMock
import ArgumentParser

/// The `apple-id-mock` command: serve, validate scenarios, mint a client secret.
@main
struct AppleIDMockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple-id-mock",
        abstract: "A faithful stand-in for Apple's Sign in with Apple server (appleid.apple.com).",
        subcommands: [
            ServeCommand.self, ValidateCommand.self, ClientSecretCommand.self, MintCommand.self,
            ConformanceCommand.self,
        ],
        defaultSubcommand: ServeCommand.self)
}
