import Hummingbird

/// Where clients reach the server: the configured base URL (`--public-url`), or the one a request
/// reached it at.
struct PublicAddress: Sendable {
    /// The configured base URL (no trailing slash), or `nil` to use the request's `Host`.
    let configured: String?
    /// Whether the server answers HTTPS (`--tls`).
    let servesTLS: Bool

    /// The configured base URL, or the one the request reached us at.
    func baseURL(for request: Request) -> String {
        if let configured { return configured }
        let host = request.head.authority ?? "localhost"
        let scheme = request.headers[.init("X-Forwarded-Proto")!] ?? (servesTLS ? "https" : "http")
        return "\(scheme)://\(host)"
    }
}
