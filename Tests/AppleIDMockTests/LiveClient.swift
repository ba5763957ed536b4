import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

@testable import AppleIDMock

/// HTTP to a server in another process (`HTTPClient.shared`): the control plane, and Apple's
/// endpoints called as a relying party calls them.
struct LiveClient: Sendable {
    let baseURL: String

    /// One answer: its status and body.
    struct Answer: Sendable {
        var status: Int
        var text: String

        /// The id of the first notification an event (`POST /__admin/events`) queued.
        func notificationId(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
            try #require((json["notificationIds"] as? [String])?.first, "\(text)", sourceLocation: sourceLocation)
        }

        /// The body as a JSON object (empty if it is not one).
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
        }
    }

    /// Sends one request and reads the whole answer.
    func send(_ method: String, _ path: String, body: String? = nil, contentType: String = "application/json")
        async throws -> Answer
    {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .init(rawValue: method)
        if let body {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(20))
        let buffer = try await response.body.collect(upTo: 4 << 20)
        return Answer(status: Int(response.status.code), text: String(buffer: buffer))
    }

    func get(_ path: String) async throws -> Answer {
        try await send("GET", path)
    }

    /// POSTs (or PUTs, PATCHes) JSON to the control plane.
    func json(_ path: String, _ json: String, method: String = "POST") async throws -> Answer {
        try await send(method, path, body: json)
    }

    func postForm(_ path: String, _ pairs: [(String, String)]) async throws -> Answer {
        try await send(
            "POST", path, body: FormParameters.encode(pairs), contentType: "application/x-www-form-urlencoded")
    }

    /// A native sign-in of `user` to the app (`POST /__admin/native/authorize`).
    func nativeAuthorize(_ user: String) async throws -> Answer {
        try await json(
            "/__admin/native/authorize", #"{"clientId":"com.example.app","user":"\#(user)","scopes":["name","email"]}"#)
    }

    /// The outbox as the control plane lists it.
    func notifications() async throws -> [[String: Any]] {
        try await get("/__admin/notifications").json["notifications"] as? [[String: Any]] ?? []
    }

    /// Uploads the default scenario with app group `example` notifying `url` and `settings` (JSON),
    /// under `name`, and activates it (which resets the session).
    func activateScenario(notifying url: String, settings: String, name: String = "live") async throws -> Answer {
        try await send(
            "POST", "/__admin/scenarios?name=\(name)&activate=true",
            body: try LifecycleLiveTests.scenario(notificationUrl: url, settings: settings))
    }
}
