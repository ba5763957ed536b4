import Foundation
import Testing

/// The README and `docs/` link to each other and into the repository: every relative link names a
/// file that exists, and every `#anchor` a heading of that file (GitHub's slugs), so that moving a
/// section cannot leave a link behind.
@Suite("Links between the README and docs/")
struct DocsLinkTests {
    /// The Markdown pages a newcomer reads, relative to the repository root.
    static let pages: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: Fixture.root + "/docs")) ?? []
        return ["README.md", "clients/python/README.md", "keys/README.md"]
            + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }()

    @Test("the README is short enough to read in ten minutes, and docs/ holds the rest")
    func readmeIsShort() throws {
        let readme = try String(contentsOfFile: Fixture.root + "/README.md", encoding: .utf8)
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 400)
        #expect(Self.pages.count > 10)
    }

    @Test("every relative link and anchor resolves", arguments: pages)
    func linksResolve(page: String) throws {
        let text = try String(contentsOfFile: Fixture.root + "/" + page, encoding: .utf8)
        let folder = (page as NSString).deletingLastPathComponent
        for target in Self.links(in: text) where !target.contains("://") && !target.hasPrefix("mailto:") {
            let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            let path =
                parts[0].isEmpty
                ? page : ((folder as NSString).appendingPathComponent(String(parts[0])) as NSString).standardizingPath
            let full = Fixture.root + "/" + path
            #expect(FileManager.default.fileExists(atPath: full), "\(page): \(target) names no file")
            guard parts.count == 2, path.hasSuffix(".md"),
                let linked = try? String(contentsOfFile: full, encoding: .utf8)
            else { continue }
            #expect(Self.anchors(of: linked).contains(String(parts[1])), "\(page): \(target) names no heading")
        }
    }

    /// The targets of `[text](target)` links outside code blocks.
    static func links(in text: String) -> [String] {
        var inCode = false
        var targets: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode.toggle() }
            if inCode { continue }
            for match in line.matches(of: /\]\(([^)\s]+)\)/) { targets.append(String(match.1)) }
        }
        return targets
    }

    /// GitHub's anchors for the headings of a page: lower-cased, punctuation but `-` and `_` dropped,
    /// spaces made `-`.
    static func anchors(of text: String) -> Set<String> {
        var inCode = false
        var result: Set<String> = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode.toggle() }
            guard !inCode, let heading = line.firstMatch(of: /^#{1,6} (.+)$/) else { continue }
            let kept = heading.1.lowercased().unicodeScalars.filter {
                CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" || $0 == " "
            }
            result.insert(String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-"))
        }
        return result
    }
}
