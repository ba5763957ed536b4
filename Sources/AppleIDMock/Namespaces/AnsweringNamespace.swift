import HTTPTypes
import Hummingbird

/// Names the namespace whose world answered a request in `X-Apple-ID-Mock-Namespace`, when it is
/// not the default: a tester or a test sees where an answer came from (errors included), and the
/// default namespace's answers stay as they were. Set where the world is chosen
/// (`NamespaceMiddleware`, `AppleCallMiddleware`), which is the only world a handler can read.
enum AnsweringNamespace {
    /// The header, as requests name a namespace.
    static let header = HTTPField.Name(NamespaceName.header)!

    /// `response`, naming `world`'s namespace unless it is the default.
    static func marked(_ response: Response, answeredIn world: MockState) -> Response {
        guard !world.scope.isDefault else { return response }
        var response = response
        response.headers[header] = world.scope.name
        return response
    }
}
