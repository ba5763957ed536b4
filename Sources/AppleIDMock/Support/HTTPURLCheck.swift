#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The one check of a URL the mock posts to or sends a browser back to (notification URLs, return
/// URLs): absolute `http`/`https`, with a host, a port in 1...65535, at most 2048 bytes. A port
/// out of range must be refused before the HTTP client sees it, which traps on it. The host is read
/// as written (`encodedHost`): `host` decodes international names, which loaded ICU's IDNA and
/// normalization tables into every server whose scenarios have a return URL.
enum HTTPURLCheck {
    static let maximumBytes = 2048

    /// Why `text` is not such a URL, or `nil` when it is.
    static func problem(_ text: String) -> String? {
        guard text.utf8.count <= maximumBytes else { return "a URL is at most \(maximumBytes) bytes" }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.encodedHost, !host.isEmpty
        else { return "not an absolute http(s) URL" }
        if let port = components.port, !(1...65_535).contains(port) {
            return "port \(port) is outside 1...65535"
        }
        return nil
    }
}
