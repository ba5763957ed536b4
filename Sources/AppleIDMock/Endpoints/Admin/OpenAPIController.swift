import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `GET /__admin/openapi.json`: the OpenAPI 3.1 document of the control plane and Apple's endpoints,
/// the file `Sources/AppleIDMock/Resources/openapi.json` shipped with the server.
struct OpenAPIController: Sendable {
    /// The document's bytes, read once.
    static let document: ByteBuffer? = BundledResources.data("openapi.json").map { ByteBuffer(bytes: $0) }

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.get(RouterPath(AdminPath.openAPI)) { _, _ in
            guard let document = Self.document else {
                throw ControlRefusal.notFound("the OpenAPI document is not installed")
            }
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(byteBuffer: document))
        }
    }
}
