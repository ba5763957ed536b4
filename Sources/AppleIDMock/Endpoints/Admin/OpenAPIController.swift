import Foundation
import Hummingbird

/// `GET /__admin/openapi.json`: the OpenAPI 3.1 document of the control plane and Apple's endpoints,
/// the file `Sources/AppleIDMock/Resources/openapi.json` shipped with the server.
struct OpenAPIController: Sendable {
    /// The document's bytes, read once: from the resource bundle beside the executable (as SwiftPM
    /// builds it and the Docker image ships it), else from the source tree this was built from.
    /// (`Bundle.module` would stop the process when the bundle is missing.)
    static let document: ByteBuffer? = {
        let bundleName = "apple-id-mock_AppleIDMock.resources"
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        let candidates =
            [
                Bundle.main.bundleURL.appendingPathComponent(bundleName),
                executable.deletingLastPathComponent().appendingPathComponent(bundleName),
            ].map { $0.appendingPathComponent("openapi.json") } + [
                URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent().appendingPathComponent("Resources/openapi.json")
            ]
        return candidates.lazy.compactMap { try? Data(contentsOf: $0) }.first.map { ByteBuffer(bytes: $0) }
    }()

    func addRoutes(to router: Router<MockRequestContext>) {
        router.get("__admin/openapi.json") { _, _ in
            guard let document = Self.document else {
                return AdminError(
                    status: .notFound, code: "not_found", message: "the OpenAPI document is not installed"
                ).response
            }
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(byteBuffer: document))
        }
    }
}
