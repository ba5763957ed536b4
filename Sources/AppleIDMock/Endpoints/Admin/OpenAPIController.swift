import Foundation
import Hummingbird

/// `GET /__admin/openapi.json`: the OpenAPI 3.1 document of the control plane and Apple's endpoints,
/// the file `Sources/AppleIDMock/Resources/openapi.json` shipped with the server.
struct OpenAPIController: Sendable {
    /// The document's bytes, read once.
    static let document: ByteBuffer? = BundledResources.data("openapi.json").map { ByteBuffer(bytes: $0) }

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
