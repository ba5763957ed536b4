import Foundation

/// Loads every scenario file of a directory (`*.json` except the JSON Schema), validating all of them
/// so a server never starts half-configured.
enum ScenarioLoader {
    /// The file name of the published JSON Schema, skipped when loading.
    static let schemaFileName = "scenario.schema.json"

    /// All scenarios in `directory`, by name; throws every problem of every file.
    static func loadDirectory(_ directory: String) throws(ScenarioError) -> [String: Scenario] {
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: directory)
                .filter { $0.hasSuffix(".json") && $0 != schemaFileName }
                .sorted()
        } catch {
            throw ScenarioError(
                file: directory, reason: "cannot read the scenarios directory: \(error.localizedDescription)")
        }
        guard !files.isEmpty else {
            throw ScenarioError(file: directory, reason: "no scenario files (*.json) in this directory")
        }
        var scenarios: [String: Scenario] = [:]
        var problems: [ScenarioError.Problem] = []
        var omitted = 0
        for file in files {
            let path = (directory as NSString).appendingPathComponent(file)
            do {
                let scenario = try loadFile(path)
                scenarios[scenario.name] = scenario
            } catch {
                problems += error.problems
                omitted += error.omitted
            }
        }
        guard problems.isEmpty else { throw ScenarioError(problems: problems, omitted: omitted) }
        return scenarios
    }

    /// One scenario file; its name is the file name without `.json`.
    static func loadFile(_ path: String) throws(ScenarioError) -> Scenario {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ScenarioError(file: path, reason: "cannot read the file")
        }
        let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        return try ScenarioDecoder.decode(data, file: path, name: name)
    }

    /// A scenario sent over HTTP (`POST /__admin/scenarios`), named `name`.
    static func loadData(_ data: Data, name: String) throws(ScenarioError) -> Scenario {
        try ScenarioDecoder.decode(data, file: "request body", name: name)
    }
}
