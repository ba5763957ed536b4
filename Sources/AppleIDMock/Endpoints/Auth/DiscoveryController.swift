import Hummingbird

/// `GET /.well-known/openid-configuration`: Apple's discovery document, with endpoints on the base
/// URL the request reached (or the configured one), and the issuer the `discoveryIssuer` setting
/// names (Apple's, unless it replays the June 2025 drift).
struct DiscoveryController: Sendable {
    let address: PublicAddress
    /// The document as sent, per issuer and base URL: it changes only with those (a client's `Host`
    /// can set the URL, so the memo is bounded), and JSON-encoding it is the costly part of the answer.
    private let documents = BoundedCache<String, ByteBuffer>(capacity: 64)

    init(address: PublicAddress) {
        self.address = address
    }

    /// `GET` and, as `GET` without the body, `HEAD`.
    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.get(RouterPath(ApplePath.discovery)) { request, context in await self.discovery(request, context) }
        group.head(RouterPath(ApplePath.discovery)) { request, context in
            await self.discovery(request, context).createHeadResponse()
        }
    }

    /// The document; Apple's issuer when the state cannot be read (discovery never failed before
    /// the setting existed, and a store outage should not change that).
    private func discovery(_ request: Request, _ context: WorldRequestContext) async -> Response {
        // Under a namespace's prefix, its endpoints carry the prefix (the issuer stays Apple's).
        let baseURL = address.baseURL(for: request) + context.namespaceRequest.pathPrefix
        let issuer = (try? await context.current())?.world.settings.discoveryIssuer ?? .appleid
        return Responses.appleJSON(
            body: documents.value(for: issuer.rawValue + " " + baseURL) {
                DiscoveryDocument(baseURL: baseURL, issuer: issuer.rawValue).encoded
            })
    }
}
