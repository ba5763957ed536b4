import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import AppleIDMock

/// Every route the router holds, called under a namespace: each answer comes from that namespace's
/// world, however the namespace was named, and Apple's calls land in its journal, none in the
/// default's; the control plane's answers show what was set in that namespace, not the default's.
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

    /// One control-plane call whose answer shows a namespace's state, and the part of the answer
    /// that tells namespaces apart.
    private struct Read {
        var name: String
        var method: HTTPRequest.Method = .get
        var path: String
        var json: String?
        var value: (TestResponse) -> String
    }

    @Test(
        "the control plane answers from x by content: x's scenario, clock, settings, faults, keys, consents, identities and outbox"
    )
    func controlPlaneAnswersFromX() async throws {
        let services = try await Fixture.services()
        try await Fixture.application(services).test(.router) { client in
            let reads = [
                Read(name: "scenario", path: "/__admin/scenario") { "\($0.json["name"] ?? "")" },
                Read(name: "clock", path: "/__admin/clock") { "\($0.json["now"] ?? "")" },
                Read(name: "settings", path: "/__admin/settings") { "\($0.json["idTokenLifetimeSeconds"] ?? "")" },
                Read(name: "faults", path: "/__admin/faults") { "\(($0.json["faults"] as? [Any])?.count ?? -1)" },
                // Not `/auth/keys` unprefixed: it publishes every namespace's keys, on purpose.
                Read(name: "keys", path: "/__admin/keys") { "\($0.json["signingKid"] ?? "")" },
                Read(
                    name: "minted token", method: .post, path: "/__admin/mint/id-token",
                    json: #"{"user":"sam","clientId":"com.example.web"}"#
                ) { "\(($0.json["header"] as? [String: Any])?["kid"] ?? "")" },
                Read(name: "consents", path: "/__admin/consents") { answer in
                    let consents = answer.json["consents"] as? [[String: Any]] ?? []
                    return "\(consents.count) consents, \(consents.count { $0["revokedAt"] is Int }) revoked"
                },
                Read(name: "users", path: "/__admin/users") { answer in
                    let users = answer.json["users"] as? [[String: Any]] ?? []
                    let sam = users.first { $0["key"] as? String == "sam" }?["appGroups"] as? [[String: Any]] ?? []
                    return "\(sam.first { $0["appGroupId"] as? String == "example" }?["relayEmail"] ?? "")"
                },
                Read(name: "notifications", path: "/__admin/notifications") {
                    "\(($0.json["notifications"] as? [Any])?.count ?? -1)"
                },
            ]
            func values(_ prefix: String, named: Bool = false) async throws -> [String] {
                var headers: HTTPFields = [.contentType: "application/json"]
                if named { headers[AnsweringNamespace.header] = "x" }
                var found: [String] = []
                for read in reads {
                    let answer = try await client.execute(
                        uri: prefix + read.path, method: read.method, headers: headers,
                        body: read.json.map { ByteBuffer(string: $0) })
                    found.append(read.value(answer))
                }
                return found
            }
            let before = try await values("")

            // x made unlike default in each respect, through its prefix.
            for (method, path, json, status) in [
                (HTTPRequest.Method.put, "/__admin/scenario", #"{"name":"transfer"}"#, HTTPResponse.Status.ok),
                (.post, "/__admin/clock", #"{"advanceSeconds":86400}"#, .ok),
                (.patch, "/__admin/settings", #"{"idTokenLifetimeSeconds":777}"#, .ok),
                (.post, "/__admin/faults", #"{"endpoint":"token","status":503,"times":5}"#, .created),
                (.post, "/__admin/native/authorize", #"{"clientId":"com.example.app","user":"sam"}"#, .ok),
                (.post, "/__admin/native/authorize", #"{"clientId":"com.example.app","user":"maria"}"#, .ok),
                (.post, "/__admin/events", #"{"type":"consent-revoked","user":"maria","appGroup":"example"}"#, .ok),
            ] {
                let answer = try await client.postJSON("/ns/x" + path, json, method: method)
                #expect(answer.status == status, "\(method) \(path): \(String(buffer: answer.body))")
            }
            let rotation = try await client.postJSON("/ns/x/__admin/keys/rotate", "{}")
            let rotated = try #require(rotation.json["kid"] as? String)
            let x = try #require(try await services.namespaces.existingState("x"))
            let world = try await x.current().world
            let samsAddress = world.relayEmail(of: try #require(world.users["sam"]), teamId: Fixture.teamId)
            let expected = [
                "transfer", "\(Int(Fixture.start.timeIntervalSince1970) + 86_400)", "777", "1", rotated, rotated,
                "2 consents, 1 revoked", samsAddress, "1",
            ]

            let prefixed = try await values("/ns/x")
            let named = try await values("", named: true)
            let plain = try await values("")
            for (index, read) in reads.enumerated() {
                #expect(expected[index] != before[index], "\(read.name): x is not told apart from default")
                #expect(prefixed[index] == expected[index], "\(read.name) under /ns/x")
                #expect(named[index] == expected[index], "\(read.name) with the header")
                #expect(plain[index] == before[index], "\(read.name) in default changed")
            }
        }
    }
}
