import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import AppleIDMock

/// Every route the router holds, called under a namespace: each answer comes from that namespace's
/// world, however the namespace was named, and Apple's calls land in its journal, none in the
/// default's.
@Suite("Namespaces: every route answers in the request's world")
struct NamespaceRouteWalkTests {
    /// The router's routes, each as a concrete path (its parameters filled in) and method.
    private static func routes(of services: MockServices) -> [(path: String, method: HTTPRequest.Method)] {
        buildRouter(services: services).routes.map { route in
            let path = route.path.description.split(separator: "/").map { component in
                switch component {
                case ":locale": "en_US"
                case ":file": "appleid.auth.js"
                case ":name": "walked"
                case let other where other.hasPrefix(":"): "unknown"
                default: String(component)
                }
            }
            return ("/" + path.joined(separator: "/"), route.method)
        }
    }

    @Test(
        "every route of the router, method included, is in the OpenAPI document (Apple's, the control plane, the mock's own)"
    )
    func everyRouteDocumented() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let services = try await MockServices.load(
            configuration: Fixture.configuration(), store: MemoryStore(), clock: .fixed(at: Fixture.start),
            logger: logger)
        let data = try Data(
            contentsOf: URL(fileURLWithPath: Fixture.root + "/Sources/AppleIDMock/Resources/openapi.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        for route in buildRouter(services: services).routes {
            let path = route.path.description
            // Sign in with Apple JS and the button images are files and pictures, not an API.
            guard !path.hasPrefix("/appleauth/"), !path.hasPrefix("/appleid/") else { continue }
            let documented =
                "/"
                + path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
                .joined(separator: "/") + (path.hasSuffix("/") || path == "/__admin" ? "/" : "")
            let operations = paths[documented]
            #expect(operations != nil, "\(path) is not in openapi.json")
            #expect(
                operations?[route.method.rawValue.lowercased()] != nil || route.method == .head,
                "\(route.method) \(path) is not in openapi.json")
        }
    }

    @Test("every route of the router, under /ns/x/ and with the header, answers from x")
    func everyRoute() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let services = try await MockServices.load(
            configuration: Fixture.configuration(), store: MemoryStore(), clock: .fixed(at: Fixture.start),
            logger: logger)
        let routes = Self.routes(of: services)
        // Apple's endpoints, the control plane, discovery, the script, the images, health, metrics.
        #expect(routes.count >= 50)
        let app = Application(
            responder: NamespacePrefixResponder(router: buildRouter(services: services).buildResponder()))
        try await app.test(.router) { client in
            for (path, method) in routes {
                let prefixed = try await client.execute(uri: "/ns/x" + path, method: method)
                #expect(
                    prefixed.headers[AnsweringNamespace.header] == "x",
                    "\(method) /ns/x\(path) answered \(prefixed.status) outside x")
                var headers = HTTPFields()
                headers[AnsweringNamespace.header] = "x"
                let named = try await client.execute(uri: path, method: method, headers: headers)
                #expect(
                    named.headers[AnsweringNamespace.header] == "x",
                    "\(method) \(path) with the header answered \(named.status) outside x")
                let plain = try await client.execute(uri: path, method: method)
                #expect(plain.headers[AnsweringNamespace.header] == nil, "\(method) \(path) named a namespace")
            }
            // Apple's calls land in x's journal (prefix and header), never in the default's.
            _ = try await services.state.clearJournal(recorder: services.journal)
            let x = try #require(try await services.namespaces.existingState("x"))
            _ = try await x.clearJournal(recorder: services.journal)
            let appleRoutes = routes.filter { $0.path.hasPrefix("/auth/") }
            #expect(appleRoutes.count >= 6)
            var headers = HTTPFields()
            headers[AnsweringNamespace.header] = "x"
            for (path, method) in appleRoutes {
                _ = try await client.execute(uri: "/ns/x" + path, method: method)
                _ = try await client.execute(uri: path, method: method, headers: headers)
                _ = try await client.execute(uri: path, method: method)
            }
            let endpoints = Set(appleRoutes.map { $0.path.split(separator: "/")[1] }.map(String.init))
            let inX = try await x.journal(recorder: services.journal).filter { endpoints.contains($0.endpoint) }
            let inDefault = try await services.state.journal(recorder: services.journal).filter {
                endpoints.contains($0.endpoint)
            }
            #expect(inX.count == 2 * appleRoutes.count)
            #expect(inDefault.count == appleRoutes.count, "only the plain calls are the default's")
        }
    }
}
