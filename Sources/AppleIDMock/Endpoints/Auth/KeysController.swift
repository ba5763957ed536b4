import Hummingbird

/// `GET /auth/keys` (the JWKS of the signing keys) and `GET /.well-known/openid-configuration`.
struct KeysController: Sendable {
    let services: MockServices
    /// The JWKS in stable order: the keys never change while the server runs, so it is encoded once.
    private let stableBody: ByteBuffer

    init(services: MockServices) {
        self.services = services
        stableBody = Responses.encodedJSON(JWKSet(keys: services.minter.keyRing.keys.map(\.jwk)))
    }

    func addRoutes(to router: Router<BasicRequestContext>) {
        router.get("/auth/keys") { _, _ in await self.keys() }
        router.get("/.well-known/openid-configuration") { request, _ in
            Responses.appleJSON(DiscoveryDocument(baseURL: self.services.baseURL(for: request)))
        }
    }

    private func keys() async -> Response {
        // Without the store (an outage), the JWKS is still served in its stable order.
        guard (try? await services.state.current())?.world.settings.jwksOrder == .shuffled else {
            return Responses.appleJSON(body: stableBody)
        }
        return Responses.appleJSON(JWKSet(keys: services.minter.keyRing.keys.map(\.jwk).shuffled()))
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
