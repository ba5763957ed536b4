import Foundation

/// The files of `Sources/AppleIDMock/Resources` shipped with the server (the OpenAPI document and
/// the dashboard), found once: in the resource bundle beside the executable (as SwiftPM builds it
/// and the Docker image ships it), else in the source tree this was built from. (`Bundle.module`
/// would stop the process when the bundle is missing.)
enum BundledResources {
    /// The folder holding the resources, if one was found.
    static let directory: URL? = {
        let bundleName = "apple-id-mock_AppleIDMock.resources"
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent(bundleName),
            executable.deletingLastPathComponent().appendingPathComponent(bundleName),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Resources"),
        ]
        return candidates.first {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("openapi.json").path)
        }
    }()

    /// The bytes of the resource at `relativePath` (`openapi.json`, `dashboard/index.html`).
    static func data(_ relativePath: String) -> Data? {
        directory.flatMap { try? Data(contentsOf: $0.appendingPathComponent(relativePath)) }
    }

    /// The names of the regular files directly in the resource folder `relativePath`, sorted.
    static func files(in relativePath: String) -> [String] {
        guard let folder = directory?.appendingPathComponent(relativePath),
            let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        else { return [] }
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }
}
