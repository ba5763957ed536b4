import Hummingbird
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `GET /appleid/button`, `/appleid/button/left` and `/appleid/button/logo` (Apple's button images,
/// served by `appleid.cdn-apple.com`): PNGs the mock draws for the parameters Apple documents, and
/// 404 for a parameter out of its range or unknown, as Apple answers. Cacheable, with an ETag, and
/// loadable from any origin, like the mock's Sign in with Apple JS.
struct ButtonImageController: Sendable {
    let logger: Logger

    /// Images drawn, by request (the locale left out: it does not change the drawing), each once.
    let images: DrawnButtonImages

    func addRoutes(to router: Router<MockRequestContext>) {
        let routes: [(String, ButtonImageRequest.Kind)] = [
            (ServerPath.buttonImage, .centred), (ServerPath.buttonImageLeft, .left),
            (ServerPath.buttonImageLogo, .logo),
        ]
        for (path, kind) in routes {
            router.get(RouterPath(path)) { request, _ in try await self.serve(kind, request) }
            router.head(RouterPath(path)) { request, _ in try await self.serve(kind, request).createHeadResponse() }
        }
    }

    private func serve(_ kind: ButtonImageRequest.Kind, _ request: Request) async throws -> Response {
        var asked: ButtonImageRequest
        do throws(ButtonImageRequest.Refusal) {
            guard let parameters = try? FormParameters(encoded: request.uri.query ?? "") else {
                throw ButtonImageRequest.Refusal("the query is not valid percent-encoding")
            }
            asked = try ButtonImageRequest.read(kind, parameters.pairs)
        } catch {
            logger.notice("button image refused: \(error.reason)", metadata: ["path": "\(request.uri.path)"])
            return Response(
                status: .notFound, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: "Page Not Found\n\napple-id-mock: \(error.reason)\n")))
        }
        asked.locale = ""
        return try await images.image(for: asked).cdnResponse(to: request)
    }

}
