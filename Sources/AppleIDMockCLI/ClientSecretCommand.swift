import AppleIDMock
import ArgumentParser
import Foundation

/// `apple-id-mock client-secret --client-id <id>`: prints a valid `client_secret` for that client,
/// signed with the bundled developer key of its team, for curl and tests.
struct ClientSecretCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client-secret", abstract: "Print a client_secret JWT.")

    @Option(name: .customLong("client-id"), help: "A Services ID or bundle id of the scenario")
    var clientId: String

    @Option(help: "Lifetime in seconds (Apple allows up to 15777000)")
    var lifetime: Int = 3_600

    @Option(
        name: .customLong("key-id"), help: "Use this developer key (default: the first of the team with a .p8 file)")
    var keyId: String?

    @Option(help: "Sign as this team (after an app transfer, the sending or the receiving team)")
    var team: String?

    @OptionGroup var locations: LocationOptions

    func run() async throws {
        try locations.requireFolders()
        do {
            print(
                try await ClientSecretFactory.make(
                    clientId: clientId, scenariosDirectory: locations.resolvedScenariosDir,
                    scenario: locations.resolvedScenario, keysDirectory: locations.resolvedKeysDir, now: Date(),
                    lifetime: lifetime, keyId: keyId, teamId: team))
        } catch let error as ScenarioError {
            FileHandle.standardError.write(Data("\(error.description)\n".utf8))
            throw ExitCode(1)
        }
    }
}
