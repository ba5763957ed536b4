/// Which part of the mock a request's path falls in, read once per request from the groups of
/// `Paths.swift` (`RouteGroupMiddleware` puts it in the request context; the transport's early
/// refusals read it from the head). By component, as the router matches: `//auth/token` is Apple's
/// token endpoint. A namespace's `/ns/{name}` prefix is skipped here too (the router never sees it:
/// `NamespacePrefixResponder` strips it).
enum RouteGroup: Sendable, Equatable {
    /// Apple's endpoints under `/auth`: the endpoint's name (`token`, `authorize`, …; the consent
    /// page's `authorize/consent` is part of `authorize`), `nil` for `/auth` itself.
    case apple(endpoint: String?)
    /// The control plane under `/__admin`; `dashboardFile` for the dashboard's page and its files,
    /// which hold no secret (fetched before the page asks for the token).
    case controlPlane(dashboardFile: Bool)
    /// Everything else: discovery, health, Sign in with Apple JS, unknown paths.
    case other

    /// The group of `path` (the path of a URI, without its query).
    init(path: some StringProtocol) {
        var components = path.split(separator: "/").map(Substring.init)
        // Under a namespace's prefix (`/ns/{name}/…`), the group of the rest.
        if components.count >= 2, components[0] == Substring(NamespaceName.pathComponent) {
            components.removeFirst(2)
        }
        switch components.first {
        case Substring(ApplePath.group):
            self = .apple(endpoint: components.count > 1 ? String(components[1]) : nil)
        case Substring(AdminPath.group):
            self = .controlPlane(
                dashboardFile: components.count == 1
                    || (components.count == 3 && components[1] == AdminPath.dashboardFolder))
        default:
            self = .other
        }
    }

    /// Whether the request is one of Apple's calls (`/auth/<endpoint>`).
    var isAppleCall: Bool {
        if case .apple(let endpoint) = self { return endpoint != nil }
        return false
    }

    /// The name the journal and the fault rules give Apple's endpoint (`auth` for the bare group).
    var appleEndpoint: String? {
        if case .apple(let endpoint) = self { return endpoint ?? ApplePath.group }
        return nil
    }
}
