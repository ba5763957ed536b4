import HTTPTypes

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a request says of its namespace before any route runs: a `/ns/{name}/` path prefix or the
/// `X-Apple-ID-Mock-Namespace` header (explicit, the first match wins), and the dashboard's cookie.
/// The rest of the choice (what the mock issued, a claimed `client_id`) needs the call's
/// parameters: `NamespaceChoice`.
struct NamespaceRequest: Sendable, Equatable {
    /// Where an explicit name came from.
    enum Source: Sendable, Equatable {
        case prefix, header
    }

    /// A name the path prefix or the header gave.
    struct Explicit: Sendable, Equatable {
        var name: String
        var source: Source
    }

    /// The name the path prefix or the header gave, if any.
    var explicit: Explicit?
    /// The namespace the dashboard's cookie names (a well-formed name only).
    var cookie: String?

    /// The path prefix the request came under (`/ns/{name}`), for links and endpoints it hands out;
    /// empty without one.
    var pathPrefix: String {
        guard let explicit, explicit.source == .prefix else { return "" }
        return NamespaceName.pathPrefix(explicit.name)
    }

    /// Reads the cookie `NamespaceName.cookie` from `headers` (ignored unless well formed).
    static func cookie(in headers: HTTPFields) -> String? {
        for field in headers[values: .cookie] {
            for pair in field.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingWhitespace() == NamespaceName.cookie else {
                    continue
                }
                let value = parts[1].trimmingWhitespace()
                if NamespaceName.problem(value) == nil { return value }
            }
        }
        return nil
    }
}
