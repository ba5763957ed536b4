import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `GET /appleauth/static/jsapi/appleid/1/en_US/appleid.auth.js` (Apple's CDN path, served by
/// `appleid.cdn-apple.com`) and its typings `appleid.auth.d.ts`: the mock's own Sign in with Apple
/// JS, which opens its popup on the server that served it. Any `ll_CC` locale folder gives the
/// same English files. Cacheable, with an ETag, and loadable from any origin.
struct SignInJSController: Sendable {
    func addRoutes(to router: Router<MockRequestContext>) {
        let path = RouterPath(ServerPath.signInJSFile)
        router.get(path) { request, context in Self.serve(request, context) }
        router.head(path) { request, context in Self.serve(request, context).createHeadResponse() }
    }

    private static func serve(_ request: Request, _ context: MockRequestContext) -> Response {
        let locale = context.parameters.get("locale") ?? ""
        let name = context.parameters.get("file") ?? ""
        guard isLocale(locale), let asset = SignInJSAssets.files[name] else {
            return Response(
                status: .notFound, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                body: .init(
                    byteBuffer: ByteBuffer(
                        string: SignInJSAssets.files.isEmpty
                            ? "apple-id-mock: the jsapi files are not installed beside the executable\n"
                            : "apple-id-mock: no such file; try \(ServerPath.signInJS)\n")))
        }
        return asset.cdnResponse(to: request)
    }

    /// `en_US`, `fr_FR`, …: two lowercase letters, `_`, two uppercase letters.
    private static func isLocale(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count == 5, scalars[2] == "_" else { return false }
        return scalars[0...1].allSatisfy { ("a"..."z").contains($0) }
            && scalars[3...4].allSatisfy { ("A"..."Z").contains($0) }
    }
}
