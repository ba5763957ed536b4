import HTTPTypes
import Hummingbird

/// `/ns/`, spelled once rather than on every request (a generic type holds no static stored property).
private let namespacePathLead = "/\(NamespaceName.pathComponent)/"

/// Reads a request's namespace before the router sees it: strips a `/ns/{name}` path prefix (so every
/// route answers under it), or reads the `X-Apple-ID-Mock-Namespace` header, and the dashboard's
/// cookie, into `context.namespaceRequest`. A badly formed name is refused here, in the format of
/// the surface it came to: Apple's JSON on `/auth/*`, the control plane's on `/__admin/*`.
struct NamespacePrefixResponder<Router: HTTPResponder>: HTTPResponder where Router.Context == MockRequestContext {
    typealias Context = MockRequestContext
    let router: Router

    func respond(to request: Request, context: Context) async throws -> Response {
        var context = context
        var request = request
        context.namespaceRequest.cookie = NamespaceRequest.cookie(in: request.headers)
        if let (name, rest) = Self.splitPrefix(request.head.path ?? "") {
            if let problem = NamespaceName.problem(name) {
                return Self.refusal(problem, in: "the path prefix /ns/{name}", path: rest)
            }
            var head = request.head
            head.path = rest
            request = Request(head: head, body: request.body)
            context.namespaceRequest.explicit = .init(name: String(name), source: .prefix)
        } else if let name = request.headers[AnsweringNamespace.header] {
            if let problem = NamespaceName.problem(name) {
                return Self.refusal(problem, in: "the header \(NamespaceName.header)", path: request.uri.path)
            }
            context.namespaceRequest.explicit = .init(name: name, source: .header)
        }
        return try await router.respond(to: request, context: context)
    }

    /// The name and the rest of a request target under `/ns/{name}` (the rest always begins with
    /// `/`), or `nil` for a target without the prefix.
    static func splitPrefix(_ target: String) -> (name: Substring, rest: String)? {
        guard target.hasPrefix(namespacePathLead) else { return nil }
        let afterLead = target.dropFirst(namespacePathLead.count)
        let end = afterLead.firstIndex { $0 == "/" || $0 == "?" } ?? afterLead.endIndex
        let name = afterLead[..<end]
        let rest = afterLead[end...]
        return (name, rest.hasPrefix("/") ? String(rest) : "/" + rest)
    }

    /// The refusal of a badly formed name, as the surface of `path` answers.
    private static func refusal(_ problem: String, in place: String, path: String) -> Response {
        switch RouteGroup(path: path.split(separator: "?", maxSplits: 1).first ?? "") {
        case .controlPlane:
            return AdminErrorMiddleware.response(
                for: .invalid([ScenarioError.Problem(file: "request", path: place, reason: problem)]))
        case .apple, .other:
            let reason = "\(place): \(problem)"
            return AppleErrorMiddleware.response(AppleError("invalid_request", description: reason, reason: reason))
        }
    }
}
