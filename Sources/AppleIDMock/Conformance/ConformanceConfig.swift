#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a backend conformance run is told (`POST /__admin/conformance/runs`): the backend's client
/// ids and user, the paths to drive with their request templates, how the app carries the nonce,
/// what acceptance looks like, and the findings already accepted as risks. Read with every problem
/// named by its JSON path.
struct ConformanceConfig: Sendable {
    /// How the app carries the nonce: the token's `nonce` is sha256 of the raw nonce the app posts,
    /// in hex (the native convention), the raw nonce itself, or there is none.
    enum NonceScheme: String, Sendable, CaseIterable, Codable {
        case sha256Hex = "sha256-hex"
        case raw
        case none
    }

    /// How the backend's answer shows that it signed the user in.
    struct Acceptance: Sendable, Codable {
        /// `2xx`, `3xx`, or one status (`200`).
        var status: String?
        /// Text the body holds on acceptance.
        var bodyContains: String?
        /// A cookie the answer sets on acceptance (on the web path: any answer of the sign-in).
        var cookie: String?
        /// Text the final URL holds on acceptance (the web path, after the backend's redirects).
        var finalUrlContains: String?
        /// A JSON pointer into the body naming the signed-in user's `sub` (also judges `sub-not-bound`).
        var userPointer: String?
        /// A JSON pointer into the body to whether the backend counts the user's email as verified
        /// (a JSON boolean, or the string `"true"`/`"false"`): judges `bool-string-false`.
        var emailVerifiedPointer: String?

        /// Nothing said: a 2xx is acceptance.
        static let any2xx = Acceptance(status: "2xx")
    }

    /// One of the backend's endpoints a path sends to, with its request template.
    struct Endpoint: Sendable {
        var url: String
        var method: String
        var headers: [(name: String, value: String)]
        /// The body, with `{{identityToken}}`, `{{authorizationCode}}`, `{{rawNonce}}`,
        /// `{{userIdentifier}}`, `{{user}}` and `{{email}}` filled in per case.
        var body: String
        var accepted: Acceptance?
    }

    var clientId: String
    var otherClientIds: [String]
    var user: String
    var nonce: NonceScheme
    var native: Endpoint?
    var exchange: Endpoint?
    /// The browser's sign-in, from the backend's start URL.
    var web: Web?
    /// The backend's receiver of server-to-server notifications.
    var notifications: Notifications?
    var accepted: Acceptance
    var knownFindings: Set<ConformanceCase>
    /// The cases to run (every case when the config names none).
    var cases: [ConformanceCase]
    /// Whether the run's namespace is kept after it ends.
    var keep: Bool
    /// The mock's base URL as the backend reaches it, under which the attacker's JWKS and
    /// certificate that `key-header-injection` names are served (`nil`: the URL the run was started
    /// at).
    var mockUrl: String? = nil

    /// The web path: where the backend's sign-in starts, and how its end shows acceptance.
    struct Web: Sendable {
        var start: String
        var accepted: Acceptance?
        /// Origins besides the start URL's where the mock's browser may post the callback and follow
        /// redirects (`scheme://host:port`).
        var origins: [String] = []

        /// Where the browser may go: the start URL's origin and those the config names.
        var allowedOrigins: Set<String> { Set([ConformanceBrowser.origin(of: start)] + origins) }
    }

    /// The notifications path: where the backend receives Apple's notifications (a URL the config
    /// names: a run sends nowhere else), about which app group (by default `clientId`'s, filled in
    /// by `ConformanceController.check`), of which type, and how a receiver's answer shows it took a
    /// notification in (by default a 2xx, what Apple counts as delivered; not the config's
    /// `accepted`, which reads a sign-in).
    struct Notifications: Sendable {
        var url: String
        var appGroupId: String?
        var type: LifecycleEvent.Kind
        var accepted: Acceptance = .any2xx
    }

    /// The placeholders a template may use.
    static let placeholders = ["identityToken", "authorizationCode", "rawNonce", "userIdentifier", "user", "email"]

    /// Reads `body`, reporting every problem to `reader`; `nil` when the body is not an object.
    static func read(_ body: JSONValue, reader: inout JSONReader) -> ConformanceConfig? {
        let root = JSONPath.root
        guard
            let members = reader.object(
                body, at: root,
                allowed: [
                    "clientId", "otherClientIds", "user", "nonce", "native", "exchange", "web", "notifications",
                    "accepted", "knownFindings", "cases", "keep", "mockUrl",
                ])
        else { return nil }
        let clientId = reader.required(members, "clientId", at: root).flatMap {
            reader.string($0, at: root.member("clientId"))
        }
        var others: [String] = []
        if let raw = members["otherClientIds"], let list = reader.array(raw, at: root.member("otherClientIds")) {
            for (index, item) in list.enumerated() {
                if let id = reader.string(item, at: root.member("otherClientIds").index(index)) { others.append(id) }
            }
        }
        let user = members["user"].flatMap { reader.string($0, at: root.member("user")) } ?? "sam"
        let nonce =
            members["nonce"].flatMap {
                reader.choice($0, at: root.member("nonce"), of: NonceScheme.allCases.map(\.rawValue))
            }.flatMap(NonceScheme.init(rawValue:)) ?? .sha256Hex
        let native = members["native"].flatMap {
            endpoint($0, at: root.member("native"), needs: "identityToken", reader: &reader)
        }
        let exchange = members["exchange"].flatMap {
            endpoint($0, at: root.member("exchange"), needs: "authorizationCode", reader: &reader)
        }
        let web = members["web"].flatMap { webPath($0, at: root.member("web"), reader: &reader) }
        let notifications = members["notifications"].flatMap {
            notificationsPath($0, at: root.member("notifications"), reader: &reader)
        }
        if members["native"] == nil, members["exchange"] == nil, members["web"] == nil, members["notifications"] == nil
        {
            reader.report(root, "name at least one path to drive: native, exchange, web or notifications")
        }
        let accepted = members["accepted"].flatMap { acceptance($0, at: root.member("accepted"), reader: &reader) }
        let known = caseList(members["knownFindings"], at: root.member("knownFindings"), reader: &reader)
        let cases = caseList(members["cases"], at: root.member("cases"), reader: &reader)
        let keep = members["keep"].flatMap { reader.bool($0, at: root.member("keep")) } ?? false
        let mockUrl = members["mockUrl"].flatMap { reader.string($0, at: root.member("mockUrl")) }
        if let mockUrl {
            if let problem = HTTPURLCheck.problem(mockUrl) {
                reader.report(root.member("mockUrl"), problem)
            } else if mockUrl.contains("?") || mockUrl.contains("#") {
                reader.report(root.member("mockUrl"), "a base URL, without a query or a fragment")
            }
        }
        guard let clientId else { return nil }
        return ConformanceConfig(
            clientId: clientId, otherClientIds: others, user: user, nonce: nonce, native: native, exchange: exchange,
            web: web, notifications: notifications, accepted: accepted ?? .any2xx, knownFindings: Set(known ?? []),
            cases: cases ?? ConformanceCase.allCases,
            keep: keep, mockUrl: mockUrl)
    }

    /// A path's endpoint; its template must hold `needs`.
    private static func endpoint(_ value: JSONValue, at path: JSONPath, needs: String, reader: inout JSONReader)
        -> Endpoint?
    {
        guard
            let members = reader.object(
                value, at: path, allowed: ["url", "method", "headers", "body", "accepted"])
        else { return nil }
        let url = reader.required(members, "url", at: path).flatMap { reader.string($0, at: path.member("url")) }
        if let url, let problem = HTTPURLCheck.problem(url) { reader.report(path.member("url"), problem) }
        let method =
            members["method"].flatMap {
                reader.choice($0, at: path.member("method"), of: ["POST", "PUT", "PATCH"])
            } ?? "POST"
        var headers: [(String, String)] = []
        if let raw = members["headers"], let object = headerObject(raw, at: path.member("headers"), reader: &reader) {
            for (name, value) in object.sorted(by: { $0.key < $1.key }) {
                if let text = reader.string(value, at: path.member("headers").member(name)) {
                    if !isToken(name) {
                        reader.report(
                            path.member("headers").member(name),
                            "not a header name (RFC 9110: letters, digits and !#$%&'*+-.^_`|~)")
                    } else if text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F })
                    {
                        reader.report(path.member("headers").member(name), "a header value holds no control character")
                    } else {
                        headers.append((name, text))
                    }
                }
            }
        }
        let body = reader.required(members, "body", at: path).flatMap { reader.string($0, at: path.member("body")) }
        if let body {
            if !body.contains("{{\(needs)}}") {
                reader.report(path.member("body"), "the template must send {{\(needs)}}")
            }
            for placeholder in ConformanceTemplate.placeholders(in: body) where !placeholders.contains(placeholder) {
                reader.report(
                    path.member("body"),
                    "unknown placeholder {{\(placeholder)}}; known: \(placeholders.map { "{{\($0)}}" }.joined(separator: ", "))"
                )
            }
        }
        let accepted = members["accepted"].flatMap { acceptance($0, at: path.member("accepted"), reader: &reader) }
        guard let url, let body else { return nil }
        return Endpoint(url: url, method: method, headers: headers, body: body, accepted: accepted)
    }

    /// The web path's start URL and acceptance.
    private static func webPath(_ value: JSONValue, at path: JSONPath, reader: inout JSONReader) -> Web? {
        guard let members = reader.object(value, at: path, allowed: ["start", "accepted", "origins"]) else {
            return nil
        }
        let start = reader.required(members, "start", at: path).flatMap { reader.string($0, at: path.member("start")) }
        if let start, let problem = HTTPURLCheck.problem(start) { reader.report(path.member("start"), problem) }
        let accepted = members["accepted"].flatMap { acceptance($0, at: path.member("accepted"), reader: &reader) }
        var origins: [String] = []
        if let raw = members["origins"], let list = reader.array(raw, at: path.member("origins")) {
            for (index, item) in list.enumerated() {
                let at = path.member("origins").index(index)
                guard let origin = reader.string(item, at: at) else { continue }
                if let problem = HTTPURLCheck.problem(origin) {
                    reader.report(at, problem)
                } else {
                    origins.append(ConformanceBrowser.origin(of: origin))
                }
            }
        }
        return start.map { Web(start: $0, accepted: accepted, origins: origins) }
    }

    /// The notifications path: `url` (required), `appGroupId`, `type` and `accepted`.
    private static func notificationsPath(_ value: JSONValue, at path: JSONPath, reader: inout JSONReader)
        -> Notifications?
    {
        guard let members = reader.object(value, at: path, allowed: ["url", "appGroupId", "type", "accepted"])
        else { return nil }
        let url = reader.required(members, "url", at: path).flatMap { reader.string($0, at: path.member("url")) }
        if let url, let problem = HTTPURLCheck.problem(url) { reader.report(path.member("url"), problem) }
        let group = members["appGroupId"].flatMap { reader.string($0, at: path.member("appGroupId")) }
        let type =
            members["type"].flatMap {
                reader.choice($0, at: path.member("type"), of: LifecycleEvent.Kind.allCases.map(\.rawValue))
            }.flatMap(LifecycleEvent.Kind.init(rawValue:)) ?? .consentRevoked
        let accepted = members["accepted"].flatMap { acceptance($0, at: path.member("accepted"), reader: &reader) }
        guard let url else { return nil }
        return Notifications(url: url, appGroupId: group, type: type, accepted: accepted ?? .any2xx)
    }

    /// Whether `name` is an HTTP token (a header name).
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }

    /// The headers' object, any names.
    private static func headerObject(_ value: JSONValue, at path: JSONPath, reader: inout JSONReader)
        -> [String: JSONValue]?
    {
        guard case .object(let members) = value else {
            reader.report(path, "expected an object of header names and values, found \(value.typeDescription)")
            return nil
        }
        return members
    }

    private static func acceptance(_ value: JSONValue, at path: JSONPath, reader: inout JSONReader) -> Acceptance? {
        guard
            let members = reader.object(
                value, at: path,
                allowed: [
                    "status", "bodyContains", "finalUrlContains", "cookie", "userPointer", "emailVerifiedPointer",
                ])
        else { return nil }
        var acceptance = Acceptance()
        if let raw = members["status"] {
            let status: String? =
                switch raw {
                case .number(let number): Int(exactly: number).map(String.init) ?? String(number)
                default: reader.string(raw, at: path.member("status"))
                }
            if let status {
                if ConformanceAcceptance.statusMatcher(status) == nil {
                    reader.report(path.member("status"), "a status class (2xx, 3xx) or one status from 100 to 599")
                } else {
                    acceptance.status = status
                }
            }
        }
        acceptance.bodyContains = members["bodyContains"].flatMap { reader.string($0, at: path.member("bodyContains")) }
        acceptance.cookie = members["cookie"].flatMap { reader.string($0, at: path.member("cookie")) }
        acceptance.finalUrlContains = members["finalUrlContains"].flatMap {
            reader.string($0, at: path.member("finalUrlContains"))
        }
        acceptance.userPointer = pointer("userPointer", in: members, at: path, reader: &reader)
        acceptance.emailVerifiedPointer = pointer("emailVerifiedPointer", in: members, at: path, reader: &reader)
        return acceptance
    }

    /// The JSON pointer (RFC 6901) at `name` of `members`, if one is given and well formed.
    private static func pointer(
        _ name: String, in members: [String: JSONValue], at path: JSONPath, reader: inout JSONReader
    ) -> String? {
        guard let pointer = members[name].flatMap({ reader.string($0, at: path.member(name)) }) else { return nil }
        guard pointer.isEmpty || pointer.hasPrefix("/") else {
            reader.report(path.member(name), "a JSON pointer begins with / (RFC 6901)")
            return nil
        }
        return pointer
    }

    private static func caseList(_ value: JSONValue?, at path: JSONPath, reader: inout JSONReader)
        -> [ConformanceCase]?
    {
        guard let value, let list = reader.array(value, at: path) else { return nil }
        var cases: [ConformanceCase] = []
        for (index, item) in list.enumerated() {
            guard let id = reader.string(item, at: path.index(index)) else { continue }
            guard let known = ConformanceCase(rawValue: id) else {
                reader.report(path.index(index), "unknown case id \"\(id)\"; see docs/backend-conformance.md")
                continue
            }
            cases.append(known)
        }
        return cases
    }
}
