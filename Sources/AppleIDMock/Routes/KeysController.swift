import Hummingbird

/// `GET /auth/keys` (the JWKS of the signing keys) and `GET /.well-known/openid-configuration`.
struct KeysController: Sendable {
    let services: MockServices

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.get("/auth/keys") { _, _ in await self.keys() }
        router.get("/.well-known/openid-configuration") { request, _ in
            Responses.appleJSON(DiscoveryDocument(baseURL: self.services.baseURL(for: request)))
        }
    }

    private func keys() async -> Response {
        let settings = await services.runtime.current.world.settings
        var keys = services.minter.keyRing.keys.map(\.jwk)
        if settings.jwksOrder == .shuffled { keys.shuffle() }
        return Responses.appleJSON(JWKSet(keys: keys))
    }

    /// `{"keys":[…]}`.
    private struct JWKSet: Encodable {
        var keys: [PublicJWK]
    }
}

extension MockServices {
    /// The configured public base URL, or the one the request reached us at.
    func baseURL(for request: Request) -> String {
        if let publicBaseURL { return publicBaseURL }
        let host = request.head.authority ?? "localhost"
        let scheme = request.headers[.init("X-Forwarded-Proto")!] ?? "http"
        return "\(scheme)://\(host)"
    }
}
