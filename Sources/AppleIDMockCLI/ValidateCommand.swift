import AppleIDMock
import ArgumentParser
import Foundation

/// `apple-id-mock validate [dir]`: checks every scenario file (and the keys they name) and reports
/// each problem with its file, JSON path and reason.
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
        try FolderCheck.require([scenarios, locations.keysFolder])
        do {
            let names = try ScenarioCatalog.validate(directory: directory, keysDirectory: locations.resolvedKeysDir)
            print("OK: \(names.count) scenario(s) in \(directory): \(names.joined(separator: ", "))")
        } catch {
            FileHandle.standardError.write(Data("\(error.description)\n".utf8))
            throw ExitCode(1)
        }
    }
}
