import Hummingbird
import Logging
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Guards the control plane (`/__admin/*`). With an admin token, every call must bear it
/// (`Authorization: Bearer …`, else 401). Always, it refuses what a web page open in a browser could
/// forge: a JSON body sent without `Content-Type: application/json` (415) and a foreign `Origin`
/// (403); and, without a token while bound to loopback, a `Host` that is not this machine's
/// (403, against DNS rebinding; over TLS a rebinding page fails the certificate's name check, so
/// `appleid.apple.com` reaching a loopback server through a hosts entry passes). Apple's endpoints stay open, and so do the dashboard's files (the
/// page asks for the token before it calls anything).
struct AdminAccessMiddleware: RouterMiddleware {
    typealias Context = MockRequestContext

    /// Who may call the control plane, from the server's configuration.
    struct Access: Sendable {
        /// The token every call must bear, if set.
        var adminToken: String?
        /// The interface the server is bound to (the `Host` check applies on loopback).
        var host: String
        /// Whether the server answers HTTPS.
        var servesTLS: Bool
        /// The configured base URL (`--public-url`), if any.
        var publicBaseURL: String?
    }

    let access: Access
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let path = request.uri.path
        var request = request
        do {
            // The dashboard's files hold no secret: the page loads, then asks for the token.
            let isPage =
                (request.method == .get || request.method == .head)
                && context.routeGroup == .controlPlane(dashboardFile: true)
            try check(request, needsToken: !isPage)
            try await Self.checkChunkedBody(&request)
        } catch {
            logger.notice(
                "control-plane call refused",
                metadata: [
                    "idp.path": .string(path), "idp.status": "\(AdminErrorMiddleware.status(of: error).code)",
                    "idp.reason": .string(error.message),
                ])
            return AdminErrorMiddleware.response(for: error)
        }
        return try await next(request, context)
    }

    private func check(_ request: Request, needsToken: Bool) throws(ControlRefusal) {
        if let token = access.adminToken {
            guard !needsToken || RequestReading.bearerToken(request).map({ Self.constantTimeEqual($0, token) }) == true
            else {
                throw .unauthorized("this server needs its admin token: Authorization: Bearer <token>")
            }
        } else if !access.servesTLS, Self.isLoopback(access.host), let authority = request.head.authority,
            !authority.isEmpty
        {
            // A rebinding page always sends its own name; a request without Host (HTTP/1.0) is local.
            let host = Self.hostName(authority)
            guard Self.isLocalName(host) || host == publicHost else {
                throw .forbidden(
                    "Host \"\(request.head.authority ?? "")\" is not this server's name; a page on another site cannot reach it (start with --public-url to allow a name)"
                )
            }
        }
        if let origin = request.headers[.origin], !isSameOrigin(origin, authority: request.head.authority) {
            throw .forbidden("cross-origin request from \(origin) refused")
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > 0 {
            try Self.requireJSON(request)
        }
    }

    /// A chunked body (no `Content-Length`) not declared as JSON: read here, within the control
    /// plane's limit, and refused (415) unless it is empty, so the rule also holds on routes that
    /// never read a body. The bytes read stay in the request for the handler.
    private static func checkChunkedBody(_ request: inout Request) async throws(ControlRefusal) {
        guard request.headers[.transferEncoding] != nil, request.headers[.contentLength] == nil,
            !isJSON(request.headers[.contentType])
        else { return }
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: AdminBody.maximumSize)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw .tooLarge(limit: AdminBody.maximumSize)
        } catch is NIOTooManyBytesError {
            throw .tooLarge(limit: AdminBody.maximumSize)
        } catch {
            throw .invalidBody("the chunked body could not be read: \(error)")
        }
        if body.readableBytes > 0 { try requireJSON(request) }
    }

    /// The host of `--public-url`, if set.
    private var publicHost: String? {
        access.publicBaseURL.flatMap { URLComponents(string: $0)?.host?.lowercased() }
    }

    /// Whether `origin` is this server's own (as reached, or as configured by `--public-url`).
    private func isSameOrigin(_ origin: String, authority: String?) -> Bool {
        guard let components = URLComponents(string: origin), let host = components.host else { return false }
        let port = components.port.map { ":\($0)" } ?? ""
        let hostPort = (host.contains(":") ? "[\(host)]" : host) + port
        if let authority, hostPort.lowercased() == authority.lowercased() { return true }
        if let publicBaseURL = access.publicBaseURL, origin.lowercased() == publicBaseURL.lowercased() { return true }
        return false
    }

    /// Compares without stopping at the first difference.
    private static func constantTimeEqual(_ left: String, _ right: String) -> Bool {
        let (a, b) = (Array(left.utf8), Array(right.utf8))
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// The name part of a `Host` value (`[::1]:8080` → `::1`).
    static func hostName(_ authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end]).lowercased()
        }
        return String(authority.split(separator: ":", maxSplits: 1).first ?? "").lowercased()
    }

    /// Whether a bind address is loopback only.
    static func isLoopback(_ host: String) -> Bool {
        isLocalName(host.lowercased())
    }

    /// Names and addresses that can only mean this machine: `localhost` (and its subdomains, which
    /// resolvers keep local), `::1`, and IPv4 literals in 127.0.0.0/8 (not names such as
    /// `127.rebind.example`).
    private static func isLocalName(_ host: String) -> Bool {
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.first == "127"
            && octets.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && UInt8($0) != nil }
    }

    /// 415 unless the request declares a JSON body.
    static func requireJSON(_ request: Request) throws(ControlRefusal) {
        guard !isJSON(request.headers[.contentType]) else { return }
        throw .notJSON(found: request.headers[.contentType])
    }

    /// `application/json` or `application/<something>+json`, with any parameters.
    private static func isJSON(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.trimmingWhitespace().lowercased()
        else { return false }
        return type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
    }
}
