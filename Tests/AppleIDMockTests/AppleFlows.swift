import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore

@testable import AppleIDMock
@testable import HummingbirdTesting

// The one set of client helpers the suites use to call Apple's endpoints (sign in, exchange a code,
// refresh), written once over HummingbirdTesting's `TestClientProtocol`. Three transports conform:
// the in-process router (`app.test(.router)`), HummingbirdTesting's live server (`app.test(.live)`),
// and `LiveClient`, which speaks HTTP to a server in another process (below).

extension TestClientProtocol {
    /// POSTs a form body.
    func postForm(_ uri: String, _ pairs: [(String, String)], headers extra: HTTPFields = [:]) async throws
        -> TestResponse
    {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        headers.append(contentsOf: extra)
        return try await execute(
            uri: uri, method: .post, headers: headers, body: ByteBuffer(string: FormParameters.encode(pairs)))
    }

    /// POSTs JSON to the control plane.
    func postJSON(_ uri: String, _ json: String, method: HTTPRequest.Method = .post) async throws -> TestResponse {
        try await execute(
            uri: uri, method: method, headers: [.contentType: "application/json"], body: ByteBuffer(string: json))
    }

    /// GETs `/auth/authorize` with these parameters.
    func authorize(_ pairs: [(String, String)], headers: HTTPFields = [:]) async throws -> TestResponse {
        try await execute(uri: "/auth/authorize?" + FormParameters.encode(pairs), method: .get, headers: headers)
    }

    /// Signs `user` in to the web client through `login_hint` with form_post and returns the posted fields.
    func signIn(
        _ user: String, scope: String = "name email", nonce: String? = "nonce-123", state: String = "state-xyz",
        extra: [(String, String)] = []
    ) async throws -> [String: String] {
        var pairs = [
            ("client_id", Fixture.webClient), ("redirect_uri", Fixture.redirect), ("response_type", "code id_token"),
            ("response_mode", "form_post"), ("scope", scope), ("state", state), ("login_hint", user),
        ]
        if let nonce { pairs.append(("nonce", nonce)) }
        let response = try await authorize(pairs + extra)
        return Fixture.hiddenFields(String(buffer: response.body))
    }

    /// Exchanges a code at `/auth/token`.
    func exchange(
        code: String, clientId: String = Fixture.webClient, redirect: String? = Fixture.redirect, secret: String,
        extra: [(String, String)] = []
    ) async throws -> TestResponse {
        var pairs = [
            ("grant_type", "authorization_code"), ("client_id", clientId), ("client_secret", secret), ("code", code),
        ]
        if let redirect { pairs.append(("redirect_uri", redirect)) }
        return try await postForm("/auth/token", pairs + extra)
    }

    /// Uses a refresh token.
    func refresh(_ token: String, clientId: String = Fixture.webClient, secret: String) async throws -> TestResponse {
        try await postForm(
            "/auth/token",
            [
                ("grant_type", "refresh_token"), ("client_id", clientId), ("client_secret", secret),
                ("refresh_token", token),
            ])
    }
}

/// A server in another process, reached through the same helpers as the router: each request goes
/// over HTTP with `HTTPClient.shared`, and the answer comes back as HummingbirdTesting's
/// `TestResponse`.
extension LiveClient: TestClientProtocol {
    var port: Int? { URL(string: baseURL)?.port }

    func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?)
        async throws -> TestResponse
    {
        var request = HTTPClientRequest(url: baseURL + uri)
        request.method = .init(rawValue: method.rawValue)
        for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
        if let body { request.body = .bytes(body) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(20))
        var fields = HTTPFields()
        for (name, value) in response.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        let buffer = try await response.body.collect(upTo: 4 << 20)
        return TestResponse(
            head: HTTPResponse(status: .init(code: Int(response.status.code)), headerFields: fields), body: buffer,
            trailerHeaders: nil)
    }
}
