import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The mock's control plane as the `conformance` command calls it: JSON in and out over
/// URLSession, with the admin token as `Authorization: Bearer …` when there is one.
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

    /// One session for the command: a long-poll read waits up to `waitSeconds` on the server.
    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 90
        return URLSession(configuration: configuration)
    }()

    init(server: String, adminToken: String?) {
        var server = server
        while server.hasSuffix("/") { server.removeLast() }
        self.server = server
        self.adminToken = adminToken
    }

    /// `GET path` (with its query).
    func get(_ path: String) async throws(Unreachable) -> Answer {
        try await send("GET", path, body: nil)
    }

    /// `POST path` with a JSON body.
    func post(_ path: String, json: Data) async throws(Unreachable) -> Answer {
        try await send("POST", path, body: json)
    }

    private func send(_ method: String, _ path: String, body: Data?) async throws(Unreachable) -> Answer {
        guard let url = URL(string: server + path), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host != nil
        else { throw Unreachable(message: "\(server) is not an http(s) URL") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let adminToken { request.setValue("Bearer \(adminToken)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = body
        }
        do {
            let (data, response) = try await Self.session.data(for: request)
            guard let http = response as? HTTPURLResponse else {
                throw Unreachable(message: "\(method) \(url.absoluteString): not an HTTP answer")
            }
            return Answer(status: http.statusCode, body: data)
        } catch let error as Unreachable {
            throw error
        } catch {
            let reason = error.localizedDescription.replacingOccurrences(of: "\n", with: " ")
            throw Unreachable(message: "cannot reach \(server) (\(method) \(path)): \(reason)")
        }
    }
}
