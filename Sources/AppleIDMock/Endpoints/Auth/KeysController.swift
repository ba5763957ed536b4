import Hummingbird

/// `GET /auth/keys` (the JWKS) and `GET /.well-known/openid-configuration`.
struct KeysController: Sendable {
    let services: MockServices
    /// The discovery document as sent, per base URL: it changes only with the URL (which a client's
    /// `Host` can set, so the memo is bounded), and JSON-encoding it was most of that answer's time.
    private let discovery = BoundedCache<String, ByteBuffer>(capacity: 64)

    init(services: MockServices) {
        self.services = services
    }

    /// `GET` and, as `GET` without the body, `HEAD` (what uptime checks and some caches send).
    func addRoutes(to router: Router<MockRequestContext>) {
        router.get("/auth/keys") { _, context in await self.keys(context) }
        router.head("/auth/keys") { _, context in await self.keys(context).createHeadResponse() }
        router.get("/.well-known/openid-configuration") { request, context in await self.discovery(request, context) }
        router.head("/.well-known/openid-configuration") { request, context in
            await self.discovery(request, context).createHeadResponse()
        }
    }

    /// The discovery document for the base URL the request reached (or the configured one), naming
    /// the issuer of the `discoveryIssuer` setting (Apple's when the state cannot be read).
    private func discovery(_ request: Request, _ context: MockRequestContext) async -> Response {
        let baseURL = services.baseURL(for: request)
        let issuer = (try? await services.active(context))?.world.settings.discoveryIssuer ?? .appleid
        return Responses.appleJSON(
            body: discovery.value(for: issuer.rawValue + " " + baseURL) {
                DiscoveryDocument(baseURL: baseURL, issuer: issuer.rawValue).encoded
            })
    }

    /// The keys published at the mock's current instant, shuffled per response as Apple's are
    /// (unless the `jwksOrder` setting is `stable`).
    private func keys(_ context: MockRequestContext) async -> Response {
        let active: ActiveScenario
        do {
            active = try await services.active(context)
        } catch {
            return Responses.oauthError(services.refusal(error, endpoint: "keys"))
        }
        return Responses.appleJSON(
            body: active.keys.jwksBody(at: active.now, shuffled: active.world.settings.jwksOrder == .shuffled))
    }
}

extension MockServices {
    /// The configured base URL, or the one the request reached us at.
    func baseURL(for request: Request) -> String {
        if let publicBaseURL { return publicBaseURL }
        let host = request.head.authority ?? "localhost"
        let scheme = request.headers[.init("X-Forwarded-Proto")!] ?? (servesTLS ? "https" : "http")
        return "\(scheme)://\(host)"
    }
}
