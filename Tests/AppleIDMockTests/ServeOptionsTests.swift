import Foundation
import Testing

@testable import AppleIDMock

/// `ServeOptions` describes each option of `serve` once: the README's configuration table and
/// `serve --help` must say the same flag, variable and default.
@Suite("Serve options described once")
struct ServeOptionsTests {
    /// The README's configuration table: for each flag, its variable and its default as written.
    private static func readmeTable() throws -> [String: (variable: String, defaultText: String)] {
        let readme = try String(contentsOfFile: Fixture.root + "/README.md", encoding: .utf8)
        let header = "| flag | environment variable | default | meaning |"
        let start = try #require(readme.range(of: header), "README.md has no configuration table")
        var rows: [String: (String, String)] = [:]
        for line in readme[start.upperBound...].split(separator: "\n").dropFirst() {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "`", with: "")
            }
            guard cells.count >= 5 else { continue }
            let flags = cells[1].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            let variables = cells[2].split(separator: ",").map {
                String($0.trimmingCharacters(in: .whitespaces).split(separator: "=").first ?? "")
            }
            for (flag, variable) in zip(flags, variables) { rows[flag] = (variable, cells[3]) }
        }
        return rows
    }

    @Test("the README's configuration table names every option with its variable and default")
    func readme() throws {
        let table = try Self.readmeTable()
        #expect(Set(table.keys) == Set(ServeOptions.all.map(\.flag)))
        for option in ServeOptions.all {
            guard let row = table[option.flag] else { continue }
            #expect(row.variable == option.variable, "\(option.flag)")
            #expect(row.defaultText == option.defaultText, "\(option.flag): README says \(row.defaultText)")
        }
    }

    @Test("serve --help gives each option's variable and default")
    func help() async throws {
        let finished = try await ChildServers.with { children in try await children.run(["serve", "--help"]) }
        let help = finished.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(
            separator: " ")
        for option in ServeOptions.all {
            #expect(help.contains(option.flag), "\(option.flag)")
            #expect(help.contains("[env \(option.variable), default \(option.defaultText)]"), "\(option.flag)")
        }
    }
}
