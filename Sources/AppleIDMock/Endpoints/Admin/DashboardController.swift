import Crypto
import Foundation
import Hummingbird

/// `GET /__admin/`: the QA dashboard, plain HTML, CSS and JavaScript modules shipped in
/// `Resources/dashboard` (no CDN, no build step), served from memory with a strict Content
/// Security Policy. The page talks to the control plane's JSON API like any other client, so it
/// holds no secret: with an admin token the page loads, then asks for the token.
struct DashboardController: Sendable {
    /// One file of the dashboard, ready to send.
    struct Asset: Sendable {
        var body: ByteBuffer
        var contentType: String
        var etag: String
    }

    /// The dashboard's files by name, read once.
    static let assets: [String: Asset] = {
        var assets: [String: Asset] = [:]
        for name in BundledResources.files(in: "dashboard") {
            guard let type = contentType(of: name), let data = BundledResources.data("dashboard/\(name)") else {
                continue
            }
            let digest = SHA256.hash(data: data).prefix(8).map { String(format: "%02x", $0) }.joined()
            assets[name] = Asset(body: ByteBuffer(bytes: data), contentType: type, etag: "\"\(digest)\"")
        }
        return assets
    }()

    /// What the page may load and where it may connect: itself only.
    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy:
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
        .xContentTypeOptions: "nosniff",
        .init("Referrer-Policy")!: "no-referrer",
        .init("X-Frame-Options")!: "DENY",
    ]

    /// Whether `path` (split by component) is a dashboard file, which needs no admin token.
    static func isDashboard(_ components: [Substring]) -> Bool {
        components == ["__admin"]
            || (components.count == 3 && components[0] == "__admin" && components[1] == "dashboard")
    }

    func addRoutes(to router: Router<MockRequestContext>) {
        router.get("__admin") { request, _ in Self.serve("index.html", request) }
        router.get("__admin/dashboard/:file") { request, context in
            Self.serve(context.parameters.get("file") ?? "", request)
        }
    }

    private static func serve(_ name: String, _ request: Request) -> Response {
        guard let asset = assets[name] else {
            return AdminError(
                status: .notFound, code: "not_found",
                message: assets.isEmpty
                    ? "the dashboard's files are not installed beside the executable"
                    : "no dashboard file \"\(name)\""
            ).response
        }
        var headers = securityHeaders
        headers[.contentType] = asset.contentType
        headers[.cacheControl] = "no-cache"
        headers[.eTag] = asset.etag
        if request.headers[.ifNoneMatch] == asset.etag {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.body))
    }

    private static func contentType(of name: String) -> String? {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        default: nil
        }
    }
}
