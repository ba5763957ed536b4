import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The mock's control plane as the `conformance` command calls it: JSON in and out over
/// AsyncHTTPClient (not URLSession, whose FoundationNetworking would tie the executable to
/// libcurl, which the runtime image does not carry), with the admin token as
/// `Authorization: Bearer …` when there is one.
struct ConformanceControlPlane: Sendable {
    /// The server's base URL, without a trailing slash.
    let server: String
    let adminToken: String?

    /// An answer: its status and body.
    struct Answer: Sendable {
        var status: Int
        var body: Data

        /// The control plane's error (`{"error", "message"}`): `code: message`, or the body as text.
        var errorMessage: String {
            if let (code, message) = controlPlaneError { return code.map { "\($0): \(message)" } ?? message }
            let text = String(decoding: body.prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? "HTTP \(status)" : "HTTP \(status): \(text)"
        }

        /// The control plane's error code and message (one line per problem of a refused body).
        var controlPlaneError: (code: String?, message: String)? {
            /// The control plane's error body.
            struct ErrorBody: Decodable {
                var error: String?
                var message: String?
            }
            guard let decoded = try? JSONDecoder().decode(ErrorBody.self, from: body), let message = decoded.message
            else { return nil }
            return (decoded.error, message)
        }
    }

    /// Why a call got no answer (the server is unreachable, the URL is not one).
    struct Unreachable: Error, Sendable {
        var message: String
    }

    /// How long one call may take: a long-poll read waits up to `waitSeconds` on the server.
    static let timeout = TimeAmount.seconds(90)
    /// The largest answer read (a report of every case is far smaller).
    static let maximumAnswer = 16 << 20

    /// One client for the command: a refused connection fails at once (the default client retries it
    /// until the call's timeout), and a server that never answers a connection fails in 10 s.
    private static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    init(server: String, adminToken: String?) {
        var server = server
        while server.hasSuffix("/") { server.removeLast() }
        self.server = server
        self.adminToken = adminToken
    }

    /// `GET path` (with its query).
    func get(_ path: String) async throws(Unreachable) -> Answer {
        try await send(.GET, path, body: nil)
    }

    /// `POST path` with a JSON body.
    func post(_ path: String, json: Data) async throws(Unreachable) -> Answer {
        try await send(.POST, path, body: json)
    }

    private func send(_ method: HTTPMethod, _ path: String, body: Data?) async throws(Unreachable) -> Answer {
        guard let url = URL(string: server + path), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
        else { throw Unreachable(message: "\(server) is not an http(s) URL") }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        request.headers.add(name: "Accept", value: "application/json")
        if let adminToken { request.headers.add(name: "Authorization", value: "Bearer \(adminToken)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        do {
            let response = try await Self.client.execute(request, timeout: Self.timeout)
            let bytes = try await response.body.collect(upTo: Self.maximumAnswer)
            return Answer(status: Int(response.status.code), body: Data(bytes.readableBytesView))
        } catch {
            let reason = "\(error)".replacingOccurrences(of: "\n", with: " ")
            throw Unreachable(message: "cannot reach \(server) (\(method.rawValue) \(path)): \(reason)")
        }
    }
}
