#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension AuthorizationRequest {
    /// The origin of `redirectUri` (`scheme://host[:port]`, the port only when not the scheme's
    /// default): where the `web_message` result is posted. `nil` when the URL has no web origin.
    var postMessageOrigin: String? { Self.webOrigin(of: redirectUri) }

    /// The origin of `uri` as browsers write it, for `http` and `https` URLs with a host.
    static func webOrigin(of uri: String) -> String? {
        guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty
        else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        let hostPart = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let port = components.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        return "\(scheme)://\(hostPart.lowercased())\(port)"
    }

    /// `web_message` posts the result to the return URL's origin, so that URL must have one
    /// (an `http`/`https` URL with a host); Apple refuses other return URLs for web sign-in anyway.
    static func checkWebMessageTarget(_ redirectUri: String) throws(AppleError) {
        guard webOrigin(of: redirectUri) != nil else {
            throw AppleError(
                "invalid_request", description: "Invalid web redirect url.",
                reason:
                    "response_mode=web_message posts the result to the origin of redirect_uri, and \(redirectUri) has none (it needs http or https and a host)"
            )
        }
    }
}
