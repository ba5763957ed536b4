import Foundation
import Testing

@testable import AppleIDMock

/// `MockSettings.table` describes each setting once; the JSON Schema for scenario files and the
/// OpenAPI document (which the dashboard builds its fields from) must say the same: names, types,
/// ranges, choices and defaults.
@Suite("Settings described once")
struct SettingsTableTests {
    /// The `properties` of the object at `path` in the JSON file at `file` (relative to the package).
    private static func properties(_ file: String, _ path: [String]) throws -> [String: [String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixture.root + "/" + file))
        var node = try JSONSerialization.jsonObject(with: data)
        for key in path + ["properties"] { node = (node as? [String: Any])?[key] as Any }
        return try #require(node as? [String: [String: Any]], "\(file): no properties at \(path)")
    }

    /// The problems of one schema's description of `field`.
    private static func problems(_ field: SettingField, _ spec: [String: Any], in document: String) -> [String] {
        let type = spec["type"]
        var found: [String] = []
        switch field.kind {
        case .integer(let range):
            if type as? String != "integer" { found.append("type is \(type ?? "absent"), not integer") }
            if spec["minimum"] as? Int != range.lowerBound { found.append("minimum is not \(range.lowerBound)") }
            if spec["maximum"] as? Int != range.upperBound { found.append("maximum is not \(range.upperBound)") }
        case .flag:
            if type as? String != "boolean" { found.append("type is \(type ?? "absent"), not boolean") }
        case .choice(let choices):
            if spec["enum"] as? [String] != choices {
                found.append("enum is \(spec["enum"] ?? "absent"), not \(choices)")
            }
        case .optionalString:
            let types = (type as? [String]) ?? [(type as? String) ?? ""]
            if !types.contains("string") { found.append("type is \(type ?? "absent"), not string") }
        }
        return found.map { "\(document): \(field.name): \($0)" }
    }

    @Test("the scenario JSON Schema describes every setting as the table does, defaults included")
    func jsonSchema() throws {
        let properties = try Self.properties("scenarios/scenario.schema.json", ["$defs", "settings"])
        #expect(Set(properties.keys) == MockSettings.fieldNames)
        let defaults = try JSONSerialization.jsonObject(with: JSONEncoder().encode(MockSettings())) as? [String: Any]
        var problems: [String] = []
        for field in MockSettings.table {
            guard let spec = properties[field.name] else { continue }
            problems += Self.problems(field, spec, in: "scenario.schema.json")
            if let expected = spec["default"], let actual = defaults?[field.name],
                "\(expected)" != "\(actual)"
            {
                problems.append("scenario.schema.json: \(field.name): default \(expected), the mock's is \(actual)")
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("the OpenAPI document's Settings and SettingsPatch describe every setting as the table does")
    func openAPI() throws {
        for schema in ["Settings", "SettingsPatch"] {
            let properties = try Self.properties(
                "Sources/AppleIDMock/Resources/openapi.json", ["components", "schemas", schema])
            #expect(Set(properties.keys) == MockSettings.fieldNames, "\(schema)")
            var problems: [String] = []
            for field in MockSettings.table {
                guard let spec = properties[field.name] else { continue }
                problems += Self.problems(field, spec, in: "openapi.json \(schema)")
            }
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    @Test("a setting out of its range is refused at its path, as the table says")
    func readerFollowsTable() throws {
        for field in MockSettings.table {
            var reader = JSONReader()
            let bad: JSONValue =
                switch field.kind {
                case .integer(let range): .number(Double(range.upperBound) + 1)
                case .flag: .string("yes")
                case .choice: .string("no-such-choice")
                case .optionalString: .number(1)
                }
            _ = MockSettings().applying(.object([field.name: bad]), at: .root, reader: &reader)
            let error = try #require(reader.error(file: "test"), "\(field.name) accepted \(bad)")
            #expect(error.problems.first?.path == "$.\(field.name)")
        }
    }

    @Test("the settings table of the README or docs/ names every setting, with the mock's defaults")
    func documentation() throws {
        let files =
            ["README.md"]
            + ((try? FileManager.default.contentsOfDirectory(atPath: Fixture.root + "/docs")) ?? []).filter {
                $0.hasSuffix(".md")
            }.map { "docs/" + $0 }
        let header = "| setting | default | alternatives |"
        let text = try #require(
            files.lazy.compactMap { try? String(contentsOfFile: Fixture.root + "/" + $0, encoding: .utf8) }
                .first { $0.contains(header) },
            "no settings table (\(header)) in README.md or docs/")
        let defaults = try JSONSerialization.jsonObject(with: JSONEncoder().encode(MockSettings())) as? [String: Any]
        var documented: Set<String> = []
        var problems: [String] = []
        for line in text[text.range(of: header)!.upperBound...].split(separator: "\n").dropFirst() {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 3 else { continue }
            let names = cells[1].components(separatedBy: " / ").map { $0.replacingOccurrences(of: "`", with: "") }
            let values = cells[2].components(separatedBy: " / ").map { part in
                part.hasPrefix("`") ? part.dropFirst().prefix { $0 != "`" }.description : nil
            }
            for (index, name) in names.enumerated() {
                documented.insert(name)
                guard names.count == values.count || index == 0, let value = values[index],
                    let actual = defaults?[name]
                else { continue }
                if value != "\(actual)" && !(value == "true" && "\(actual)" == "1")
                    && !(value == "false" && "\(actual)" == "0")
                {
                    problems.append("\(name): documented default \(value), the mock's is \(actual)")
                }
            }
        }
        #expect(documented == MockSettings.fieldNames)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
