import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// With an admin token, every operation the OpenAPI document guards by it answers 401 to a call
/// without it, and the ones it leaves open stay open: the document and the guard agree.
@Suite("Admin token: every guarded operation")
struct AdminTokenCoverageTests {
    /// One operation of the OpenAPI document: its method, its path with each parameter filled, and
    /// whether the admin token guards it.
    struct Operation: CustomStringConvertible {
        var method: HTTPRequest.Method
        var path: String
        var guarded: Bool
        var description: String { "\(method) \(path)" }
    }

    /// Every operation of the served OpenAPI document on the control plane and `/metrics`.
    static func operations() throws -> [Operation] {
        let url = URL(fileURLWithPath: Fixture.root + "/Sources/AppleIDMock/Resources/openapi.json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var operations: [Operation] = []
        for (path, entries) in paths where path.hasPrefix("/__admin") || path == "/metrics" {
            let filled = path.replacing(/\{[^}]+\}/, with: "x")
            for (name, value) in entries {
                guard let method = HTTPRequest.Method(name.uppercased()), let operation = value as? [String: Any]
                else { continue }
                let security = operation["security"] as? [[String: Any]] ?? []
                operations.append(
                    Operation(method: method, path: filled, guarded: security.contains { $0["adminToken"] != nil }))
            }
        }
        return operations.sorted { $0.description < $1.description }
    }

    @Test("a call without the token: 401 on every guarded operation, never on an open one")
    func everyOperation() async throws {
        let operations = try Self.operations()
        #expect(operations.count > 40)
        #expect(operations.contains { $0.path.hasPrefix("/__admin/conformance/runs") && $0.guarded })
        var configuration = Fixture.configuration()
        configuration.adminToken = "s3cret-token"
        let app = try await buildApplication(configuration: configuration, clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            for operation in operations {
                let hasBody = [.post, .put, .patch].contains(operation.method)
                let answer = try await client.execute(
                    uri: operation.path, method: operation.method,
                    headers: hasBody ? [.contentType: "application/json"] : [:],
                    body: hasBody ? ByteBuffer(string: "{}") : nil)
                if operation.guarded {
                    #expect(answer.status == .unauthorized, "\(operation) answered \(answer.status)")
                } else {
                    #expect(answer.status != .unauthorized, "\(operation) is open in the document")
                }
            }
        }
    }
}
