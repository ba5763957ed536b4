import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `GET /__admin/`: the QA dashboard, plain HTML, CSS and JavaScript modules shipped in
/// `Resources/dashboard` (no CDN, no build step), served from memory with a strict Content
/// Security Policy. The page talks to the control plane's JSON API like any other client, so it
/// holds no secret: with an admin token the page loads, then asks for the token.
struct DashboardController: Sendable {
    /// What the page may load and where it may connect: itself only.
    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy:
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
        .xContentTypeOptions: "nosniff",
        .init("Referrer-Policy")!: "no-referrer",
        .init("X-Frame-Options")!: "DENY",
    ]

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.get { request, context in
            // The page names its files relative to itself (so that under /ns/{name}/__admin/ they
            // come from the namespace's prefix): it must be read at the folder, with its slash.
            guard request.uri.path.hasSuffix("/") else { return Self.toFolder(request, context) }
            return try Self.serve("index.html", request)
        }
        group.get(RouterPath(AdminPath.dashboardFile)) { request, context in
            try Self.serve(context.parameters.get("file") ?? "", request)
        }
    }

    /// `/__admin` (under its namespace's prefix, if any) sent to `/__admin/`, its query kept.
    private static func toFolder(_ request: Request, _ context: WorldRequestContext) -> Response {
        let query = request.uri.query.map { "?\($0)" } ?? ""
        let location = "\(context.namespaceRequest.pathPrefix)\(request.uri.path)/\(query)"
        var headers = securityHeaders
        headers[.location] = location
        return Response(status: .permanentRedirect, headers: headers)
    }

    private static func serve(_ name: String, _ request: Request) throws(ControlRefusal) -> Response {
        guard let asset = DashboardAssets.files[name] else {
            throw ControlRefusal.notFound(
                DashboardAssets.files.isEmpty
                    ? "the dashboard's files are not installed beside the executable"
                    : "no dashboard file \"\(name)\"")
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
}
