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

    /// The group of `path` (the path of a URI, without its query), read without an allocation
    /// (every request reads it).
    init(path: String) {
        self.init(path: path[...])
    }

    /// The group of `path`, a slice of a URI (without its query).
    init(path: Substring) {
        var components = PathComponents(rest: path)
        var first = components.next()
        // Under a namespace's prefix (`/ns/{name}/…`), the group of the rest.
        if first.map({ $0 == NamespaceName.pathComponent }) == true, components.next() != nil {
            first = components.next()
        }
        switch first {
        case .some(let group) where group == ApplePath.group:
            self = .apple(endpoint: components.next().map(String.init))
        case .some(let group) where group == AdminPath.group:
            let second = components.next()
            let third = components.next()
            self = .controlPlane(
                dashboardFile: second == nil
                    || (third != nil && components.next() == nil
                        && second.map { $0 == AdminPath.dashboardFolder } == true)
            )
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

/// The non-empty components of a path, one at a time, as slices of it (`/ns//a/` gives `ns`, `a`),
/// as `split(separator: "/")` would give them, without its array.
private struct PathComponents {
    var rest: Substring

    /// The next component, if any.
    mutating func next() -> Substring? {
        guard let start = rest.firstIndex(where: { $0 != "/" }) else {
            rest = rest[rest.endIndex...]
            return nil
        }
        let end = rest[start...].firstIndex(of: "/") ?? rest.endIndex
        defer { rest = rest[end...] }
        return rest[start..<end]
    }
}
