import Hummingbird

/// `GET /.well-known/openid-configuration`: Apple's discovery document, with endpoints on the base
/// URL the request reached (or the configured one).
struct DiscoveryController: Sendable {
    let address: PublicAddress
    /// The document as sent, per base URL: it changes only with the URL (which a client's `Host`
    /// can set, so the memo is bounded), and JSON-encoding it was most of that answer's time.
    private let documents = BoundedCache<String, ByteBuffer>(capacity: 64)

    init(address: PublicAddress) {
        self.address = address
    }

    /// `GET` and, as `GET` without the body, `HEAD`.
    func addRoutes(to group: RouterGroup<MockRequestContext>) {
        group.get(RouterPath(ApplePath.discovery)) { request, _ in self.discovery(request) }
        group.head(RouterPath(ApplePath.discovery)) { request, _ in self.discovery(request).createHeadResponse() }
    }

    private func discovery(_ request: Request) -> Response {
        let baseURL = address.baseURL(for: request)
        return Responses.appleJSON(body: documents.value(for: baseURL) { DiscoveryDocument(baseURL: baseURL).encoded })
    }
}
