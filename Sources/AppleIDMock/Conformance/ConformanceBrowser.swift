import AsyncHTTPClient
import NIOCore
import NIOHTTP1

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The mock acting as the user's browser on the web path: a cookie jar of its own, the backend's
/// start URL, the answer Apple's authorize page gives (`form_post` or a query redirect) to the
/// backend's callback, and the backend's redirects, followed only within the origins of its start
/// URL and its callback.
struct ConformanceBrowser {
    /// What the backend's start URL asked Apple for.
    struct AuthorizeAsk: Sendable {
        /// The authorize URL the start URL redirected to.
        var url: String
        /// Its query's parameters, in order (a duplicate kept, for Apple's rules to refuse).
        var parameters: [(name: String, value: String)]
        var clientId: String
        var redirectUri: String
        var state: String?
        var nonce: String?
        var responseMode: String
        var wantsIdToken: Bool
        var scopes: [String]
    }

    /// One answer, as read.
    struct Page: Sendable {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: String
        var url: String
    }

    /// The most redirects followed after the callback.
    static let maximumRedirects = 5

    let client: HTTPClient
    /// Cookies by origin, then name.
    private var jar: [String: [String: String]] = [:]
    /// Every `Set-Cookie` the sign-in met.
    private(set) var cookiesSet: [String] = []

    init(client: HTTPClient) {
        self.client = client
    }

    /// Opens `start` and reads where it sends the browser: Apple's authorize URL and what it asks.
    mutating func start(_ start: String) async throws -> AuthorizeAsk {
        let page = try await request("GET", start)
        guard (300..<400).contains(page.status),
            let location = page.headers.first(where: { $0.name.lowercased() == "location" })?.value,
            let target = URL(string: location, relativeTo: URL(string: start)),
            let items = URLComponents(url: target, resolvingAgainstBaseURL: true)?.queryItems
        else {
            throw ConformanceBrowserError(
                "the start URL answered HTTP \(page.status) without a redirect to Apple's authorize URL")
        }
        func item(_ name: String) -> String? { items.first { $0.name == name }?.value }
        guard target.path.hasSuffix(ApplePath.absolute(ApplePath.authorize)) else {
            throw ConformanceBrowserError(
                "the start URL redirects to \(target.absoluteString), not to Apple's authorize URL (…\(ApplePath.absolute(ApplePath.authorize)))"
            )
        }
        guard let clientId = item("client_id"), let redirectUri = item("redirect_uri") else {
            throw ConformanceBrowserError(
                "the start URL's redirect names no client_id and redirect_uri: \(target.absoluteString)")
        }
        return AuthorizeAsk(
            url: target.absoluteString, parameters: items.map { ($0.name, $0.value ?? "") }, clientId: clientId,
            redirectUri: redirectUri, state: item("state"), nonce: item("nonce"),
            responseMode: item("response_mode") ?? "query",
            wantsIdToken: (item("response_type") ?? "code").split(separator: " ").contains("id_token"),
            scopes: (item("scope") ?? "").split(separator: " ").map(String.init))
    }

    /// Answers `ask` with `fields` as Apple's authorize page would, then follows the backend's
    /// redirects within `origins`; returns the callback as sent and the last page.
    mutating func answer(_ ask: AuthorizeAsk, fields: [(String, String)], within origins: Set<String>) async throws
        -> (sent: ConformanceReport.SentRequest, last: Page)
    {
        var page: Page
        let sent: ConformanceReport.SentRequest
        switch ask.responseMode {
        case "form_post":
            let body = FormParameters.encode(fields)
            sent = .init(
                method: "POST", url: ask.redirectUri, headers: headers(for: ask.redirectUri, form: true), body: body)
            page = try await request("POST", ask.redirectUri, body: body)
        case "query":
            let url = ask.redirectUri + (ask.redirectUri.contains("?") ? "&" : "?") + FormParameters.encode(fields)
            sent = .init(method: "GET", url: url, headers: headers(for: url, form: false), body: "")
            page = try await request("GET", url)
        default:
            throw ConformanceBrowserError(
                "response_mode=\(ask.responseMode) hands the code to the page's script, not to the backend")
        }
        for _ in 0..<Self.maximumRedirects {
            guard (300..<400).contains(page.status),
                let location = page.headers.first(where: { $0.name.lowercased() == "location" })?.value,
                let next = URL(string: location, relativeTo: URL(string: page.url))?.absoluteString,
                origins.contains(Self.origin(of: next))
            else { break }
            page = try await request("GET", next)
        }
        return (sent, page)
    }

    /// `scheme://host:port` of `url`.
    static func origin(of url: String) -> String {
        guard let components = URLComponents(string: url), let host = components.host else { return url }
        let scheme = components.scheme ?? "http"
        return "\(scheme)://\(host):\(components.port ?? (scheme == "https" ? 443 : 80))"
    }

    /// The headers a request to `url` carries: its cookies, and for a form its type.
    private func headers(for url: String, form: Bool) -> [String: String] {
        var headers: [String: String] = [:]
        if let cookies = jar[Self.origin(of: url)], !cookies.isEmpty {
            headers["Cookie"] = cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
                separator: "; ")
        }
        if form { headers["Content-Type"] = "application/x-www-form-urlencoded" }
        return headers
    }

    /// One request, with the jar's cookies; keeps the cookies the answer sets.
    private mutating func request(_ method: String, _ url: String, body: String? = nil) async throws -> Page {
        // The callback and redirect targets come from the backend: checked as the config's URLs are.
        if let problem = HTTPURLCheck.problem(url) { throw ConformanceBrowserError("\(url): \(problem)") }
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers(for: url, form: body != nil) { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await client.execute(request, timeout: ConformanceRunner.timeout)
        let text = String(buffer: try await response.body.collect(upTo: ConformanceRunner.maximumAnswer))
        let headers = response.headers.map { (name: $0.name, value: $0.value) }
        for header in headers where header.name.lowercased() == "set-cookie" {
            cookiesSet.append(header.value)
            let pair = header.value.split(separator: ";", maxSplits: 1).first ?? ""
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            jar[Self.origin(of: url), default: [:]][parts[0].trimmingWhitespace()] = parts[1].trimmingWhitespace()
        }
        return Page(status: Int(response.status.code), headers: headers, body: text, url: url)
    }
}

/// A case the backend's own sign-in leaves no room for (a `chash-bad` without a callback id_token,
/// a nonce case when the sign-in sends no nonce): skipped, saying why.
struct ConformanceNotApplicable: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Why the browser could not go on with the sign-in.
struct ConformanceBrowserError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
