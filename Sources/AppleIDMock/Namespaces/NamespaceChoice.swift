import Hummingbird

/// Which namespace's world answers a request, first match wins: the `/ns/{name}/` prefix, the
/// `X-Apple-ID-Mock-Namespace` header, a code or token the mock issued (its namespace, wherever it
/// comes back) or a `transfer_sub` it derived, a `client_id` a namespace claims (Apple's calls only), the dashboard's cookie (in
/// a browser), otherwise the default namespace. A named namespace that does not exist yet is made.
enum NamespaceChoice {
    /// The parameters of Apple's calls that carry a code or token the mock issued.
    static let issuedParameters = ["code", "refresh_token", "token"]

    /// The world for an Apple call with `parameters` (and its bearer token, if any).
    static func appleCall(
        _ request: NamespaceRequest, parameters: FormParameters, bearer: String?, in namespaces: Namespaces
    ) async throws -> MockState {
        if let explicit = request.explicit { return try await namespaces.state(for: explicit.name) }
        for value in issuedParameters.compactMap(parameters.first) + [bearer].compactMap({ $0 }) {
            guard let tag = OpaqueToken.tag(of: value) else { continue }
            // A value the mock made: its namespace, or the default's (made there, or before namespaces).
            return try await namespaces.state(forTag: tag) ?? namespaces.defaultState
        }
        // A transfer_sub of a namespace with its own identities (user migration without a token of it).
        if let transferSub = parameters.first("transfer_sub"),
            let state = try await namespaces.state(forTransferSub: transferSub)
        {
            return state
        }
        if let client = parameters.first("client_id"), let name = try await namespaces.namespace(claiming: client) {
            return try await namespaces.state(for: name)
        }
        if let cookie = request.cookie { return try await namespaces.state(for: cookie) }
        return namespaces.defaultState
    }

    /// The world for any other request: the control plane follows only the prefix and the header;
    /// a browser's pages and discovery follow the cookie too.
    static func other(_ request: NamespaceRequest, group: RouteGroup, in namespaces: Namespaces) async throws
        -> MockState
    {
        if let explicit = request.explicit { return try await namespaces.state(for: explicit.name) }
        if case .controlPlane = group { return namespaces.defaultState }
        if let cookie = request.cookie { return try await namespaces.state(for: cookie) }
        return namespaces.defaultState
    }
}
