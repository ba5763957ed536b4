import AppleIDMock
import ArgumentParser
import Foundation

/// `apple-id-mock validate [dir]`: checks every scenario file and reports each problem with its
/// file, JSON path and reason; the signing keys they name too when a keys folder is given
/// (`--keys-dir`, `APPLE_ID_MOCK_KEYS_DIR`) or found (`keys` beside the current folder), and says
/// when it checked without them.
struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "validate", abstract: "Check scenario files.")

    @Argument(help: "Scenario folder (default: --scenarios-dir, APPLE_ID_MOCK_SCENARIOS_DIR or scenarios)")
    var directory: String?

    @OptionGroup var locations: LocationOptions

    func run() async throws {
        let directory = directory ?? locations.resolvedScenariosDir
        var scenarios = locations.scenariosFolder
        if let argument = self.directory {
            scenarios.path = argument
            scenarios.source = "the argument"
        }
        let keys = locations.keysFolder
        let keysNamed = keys.source != "the default"
        // A keys folder named is required; the default one is used when it is there.
        try FolderCheck.require(keysNamed ? [scenarios, keys] : [scenarios])
        let checksKeys = keysNamed || FolderCheck.problem(keys) == nil
        do {
            let names = try ScenarioCatalog.validate(
                directory: directory, keysDirectory: checksKeys ? keys.path : nil)
            print("OK: \(names.count) scenario(s) in \(directory): \(names.joined(separator: ", "))")
            if !checksKeys {
                print(
                    "(signing key ids not checked: no keys folder at \(keys.path); name one with --keys-dir or \(keys.variable))"
                )
            }
        } catch {
            FileHandle.standardError.write(Data("\(error.description)\n".utf8))
            throw ExitCode(1)
        }
    }
}
