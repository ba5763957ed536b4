import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import AppleIDMock

/// Errors are thrown by handlers and mapped once per protocol: `AppleErrorMiddleware` for Apple's
/// endpoints, `AdminErrorMiddleware` for the control plane. An error nobody foresaw is logged at
/// `error` with the request id and answered in the protocol's format, never as a 500.
@Suite("Errors mapped once")
struct ErrorMappingTests {
    typealias CapturingHandler = DeferredMetadataLogHandlerTests.CapturingHandler

    /// An error no rule names.
    struct Unforeseen: Error, CustomStringConvertible {
        var description: String { "something nobody foresaw" }
    }

    /// A router whose `/t/<name>` routes throw the named error through `middleware`.
    private static func router(_ middleware: some RouterMiddleware<MockRequestContext>) -> Router<MockRequestContext> {
        let router = Router(context: MockRequestContext.self)
        let group = router.group("t").add(middleware: middleware)
        let errors: [String: any Error] = [
            "unforeseen": Unforeseen(),
            "apple": AppleError.invalidGrant("The code has expired or has been revoked.", reason: "test"),
            "store": StoreUnavailable(cause: "connection refused"),
            "reset": SessionChanged(),
            "problems": ScenarioError(file: "request body", path: "$.name", reason: "missing required field"),
            "unknown": ControlRefusal.notFound("no user \"zoe\""),
            "inapplicable": ControlRefusal.notApplicable("already revoked"),
            "full": ControlRefusal.limitReached("at most 3 fault rules", limit: 3),
            "body": ControlRefusal.invalidBody("missing required field", at: "$.clientId"),
            "query": ControlRefusal.invalidQuery("limit", "not a number"),
            "token": ControlRefusal.unauthorized("this server needs its admin token"),
            "origin": ControlRefusal.forbidden("cross-origin request refused"),
            "big": ControlRefusal.tooLarge(limit: 1024),
            "text": ControlRefusal.notJSON(found: "text/plain"),
        ]
        for (name, error) in errors {
            group.get(RouterPath(name)) { _, _ -> Response in throw error }
        }
        return router
    }

    /// A logger whose lines land in `sink`.
    private static func logger(_ sink: DeferredMetadataLogHandlerTests.Sink) -> Logger {
        var logger = Logger(label: "test") { _ in CapturingHandler(sink: sink) }
        logger.logLevel = .notice
        return logger
    }

    @Test("Apple's endpoints: each domain error as Apple answers it, an unforeseen one logged at error")
    func appleAnswers() async throws {
        let sink = DeferredMetadataLogHandlerTests.Sink()
        let router = Self.router(AppleErrorMiddleware(answer: .json, logger: Self.logger(sink)))
        try await Application(router: router).test(.router) { client in
            let unforeseen = try await client.execute(uri: "/t/unforeseen", method: .get)
            #expect(unforeseen.status == .badRequest)
            #expect(String(buffer: unforeseen.body) == #"{"error":"invalid_request"}"#)
            let apple = try await client.execute(uri: "/t/apple", method: .get)
            #expect(apple.status == .badRequest)
            #expect(
                String(buffer: apple.body)
                    == #"{"error":"invalid_grant","error_description":"The code has expired or has been revoked."}"#)
            let store = try await client.execute(uri: "/t/store", method: .get)
            #expect(store.status == .serviceUnavailable)
            #expect(String(buffer: store.body).contains(#""error":"temporarily_unavailable""#))
            let reset = try await client.execute(uri: "/t/reset", method: .get)
            #expect(String(buffer: reset.body) == #"{"error":"invalid_grant"}"#)
        }
        let lines = sink.lines.withLock { $0 }
        let errors = lines.filter { $0.hasPrefix("error ") }
        #expect(errors.count == 1, "\(lines)")
        #expect(errors.first?.contains("unexpected error") == true)
        #expect(errors.first?.contains("hb.request.id=") == true)
        #expect(errors.first?.contains("something nobody foresaw") == true)
        // Every refusal is logged at notice with its reason.
        #expect(lines.filter { $0.hasPrefix("notice ") && $0.contains("request refused") }.count == 4)
    }

    @Test("the authorize flow shows Apple's error page, but JSON when asked for it or when the store is down")
    func errorPage() async throws {
        let sink = DeferredMetadataLogHandlerTests.Sink()
        let router = Self.router(AppleErrorMiddleware(answer: .errorPage, logger: Self.logger(sink)))
        try await Application(router: router).test(.router) { client in
            let page = try await client.execute(uri: "/t/apple", method: .get)
            #expect(page.status == .badRequest)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(String(buffer: page.body).contains("invalid_grant"))
            let json = try await client.execute(uri: "/t/apple", method: .get, headers: [.accept: "application/json"])
            #expect(json.headers[.contentType]?.hasPrefix("application/json") == true)
            let store = try await client.execute(uri: "/t/store", method: .get)
            #expect(store.status == .serviceUnavailable)
            #expect(store.headers[.contentType]?.hasPrefix("application/json") == true)
        }
    }

    @Test("the control plane: each domain error with its status and reason, an unforeseen one logged at error")
    func adminAnswers() async throws {
        let sink = DeferredMetadataLogHandlerTests.Sink()
        let router = Self.router(AdminErrorMiddleware(logger: Self.logger(sink)))
        try await Application(router: router).test(.router) { client in
            func answer(_ name: String) async throws -> (HTTPResponse.Status, [String: Any]) {
                let response = try await client.execute(uri: "/t/\(name)", method: .get)
                let json = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                return (response.status, json ?? [:])
            }
            let (unforeseenStatus, unforeseen) = try await answer("unforeseen")
            #expect(unforeseenStatus == .badRequest)
            #expect((unforeseen["message"] as? String)?.contains("something nobody foresaw") == true)
            let (problemsStatus, problems) = try await answer("problems")
            #expect(problemsStatus == .badRequest)
            #expect((problems["problems"] as? [[String: Any]])?.first?["path"] as? String == "$.name")
            #expect(try await answer("unknown").0 == .notFound)
            #expect(try await answer("unknown").1["error"] as? String == "not_found")
            #expect(try await answer("inapplicable").0 == .conflict)
            #expect(try await answer("inapplicable").1["error"] as? String == "not_applicable")
            let (fullStatus, full) = try await answer("full")
            #expect(fullStatus == .conflict)
            #expect(full["error"] as? String == "limit_reached")
            #expect(full["limit"] as? Int == 3)
            let (bodyStatus, body) = try await answer("body")
            #expect(bodyStatus == .badRequest)
            #expect(body["error"] as? String == "invalid_request")
            #expect((body["problems"] as? [[String: Any]])?.first?["path"] as? String == "$.clientId")
            #expect((body["message"] as? String) == "request body: $.clientId: missing required field")
            #expect(
                (try await answer("query").1["problems"] as? [[String: Any]])?.first?["path"] as? String == "?limit")
            #expect(try await answer("token").0 == .unauthorized)
            #expect(try await answer("token").1["error"] as? String == "unauthorized")
            #expect(try await answer("origin").0 == .forbidden)
            let (bigStatus, big) = try await answer("big")
            #expect(bigStatus == .contentTooLarge)
            #expect(big["error"] as? String == "payload_too_large")
            #expect(big["limit"] as? Int == 1024)
            #expect(try await answer("text").0 == .unsupportedMediaType)
            #expect(try await answer("text").1["error"] as? String == "unsupported_media_type")
            #expect(try await answer("apple").0 == .conflict)
            #expect(try await answer("reset").0 == .conflict)
            #expect(try await answer("store").0 == .serviceUnavailable)
            #expect(try await answer("store").1["error"] as? String == "store_unavailable")
        }
        let errors = sink.lines.withLock { $0 }.filter { $0.hasPrefix("error ") }
        #expect(errors.count == 1)
        #expect(errors.first?.contains("hb.request.id=") == true)
    }

    @Test("a path no route matches still meets its group's middleware: the admin token first, Apple calls journaled")
    func unmatchedPaths() async throws {
        var configuration = Fixture.configuration()
        configuration.adminToken = "qa-token"
        let app = try await buildApplication(configuration: configuration, clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let bearer: HTTPFields = [.authorization: "Bearer qa-token"]
            for (path, method) in [
                ("/__admin/nope", HTTPRequest.Method.get), ("/__admin/dashboard/api.js", .post), ("/__admin/", .put),
                ("/__admin/reset", .get),
            ] {
                #expect(
                    try await client.execute(uri: path, method: method).status == .unauthorized, "\(method) \(path)")
                #expect(
                    try await client.execute(uri: path, method: method, headers: bearer).status == .notFound,
                    "\(method) \(path)")
            }
            #expect(try await client.execute(uri: "/auth/nope", method: .post).status == .notFound)
            #expect(try await client.execute(uri: "/auth/token", method: .get).status == .notFound)
            let journal = try await client.execute(
                uri: "/__admin/journal?outcome=http_404", method: .get, headers: bearer)
            let entries =
                (try JSONSerialization.jsonObject(with: Data(buffer: journal.body)) as? [String: Any])?["entries"]
                as? [[String: Any]] ?? []
            #expect(Set(entries.compactMap { $0["endpoint"] as? String }) == ["nope", "token"])
            #expect(try await client.execute(uri: "/nowhere", method: .get).status == .notFound)
        }
    }
}
