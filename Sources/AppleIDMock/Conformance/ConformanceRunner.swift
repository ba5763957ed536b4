import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Drives one conformance run against the backend: calibrates on the valid credential, sends each
/// case on each path the config names, re-sends the valid credential every few cases so a backend
/// that locks the client out is not read as one that refuses, and records each verdict with what
/// the backend did at the mock meanwhile. Its requests go only to the URLs the config names.
struct ConformanceRunner: Sendable {
    let namespaces: Namespaces
    let journal: JournalRecorder
    let arms: ConformanceArms
    /// The fetches of the attacker's routes (`AttackerController`), read for each case's journal.
    let attackerFetches: AttackerFetches
    let logger: Logger

    /// Cases sent between two checks that the valid credential still signs in.
    static let recheckEvery = 5
    /// How long the backend has to answer one request.
    static let timeout = TimeAmount.seconds(10)
    /// The largest answer read.
    static let maximumAnswer = 1 << 20

    /// One HTTP client for every run: no redirect is followed (the answer is the backend's own).
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// Runs `run` to its end, removes its namespace unless the config keeps it, then marks it
    /// finished (so a reader that sees `finished` no longer finds the namespace).
    func drive(_ run: ConformanceRun) async {
        var stopped: String?
        do {
            let state = try await namespaces.state(for: run.namespace)
            var session = try await ConformanceSession(run: run, state: state, runner: self)
            try await session.drive()
        } catch {
            logger.notice("conformance run stopped", metadata: ["idp.run": .string(run.id), "idp.reason": "\(error)"])
            stopped = "\(error)"
        }
        if !run.config.keep { _ = try? await namespaces.delete(run.namespace) }
        run.finish(error: stopped)
    }

    /// Sends one request to the backend as `endpoint` says, with `values` in its template.
    func send(_ endpoint: ConformanceConfig.Endpoint, values: [String: String]) async -> (
        sent: ConformanceReport.SentRequest, received: ConformanceReport.Received,
        answer: ConformanceAcceptance.Answer?
    ) {
        var headers = endpoint.headers
        let named = headers.first { $0.name.lowercased() == "content-type" }?.value
        let contentType =
            named
            ?? (endpoint.body.trimmingWhitespace().hasPrefix("{")
                ? "application/json" : "application/x-www-form-urlencoded")
        if named == nil, endpoint.method != "GET" { headers.append(("Content-Type", contentType)) }
        let body = ConformanceTemplate.fill(
            endpoint.body, values: values, encoding: .init(contentType: contentType))
        let sent = ConformanceReport.SentRequest(
            method: endpoint.method, url: endpoint.url,
            headers: Dictionary(headers.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last }),
            body: body)
        var request = HTTPClientRequest(url: endpoint.url)
        request.method = HTTPMethod(rawValue: endpoint.method)
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        if endpoint.method != "GET" { request.body = .bytes(ByteBuffer(string: body)) }
        do {
            let response = try await Self.client.execute(request, timeout: Self.timeout)
            let buffer = try await response.body.collect(upTo: Self.maximumAnswer)
            let text = String(buffer: buffer)
            let answer = ConformanceAcceptance.Answer(
                status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: text)
            return (sent, .init(status: answer.status, body: String(text.prefix(2_000))), answer)
        } catch {
            return (sent, .init(error: "\(error)"), nil)
        }
    }

    /// A curl line that replays `sent`.
    static func curl(_ sent: ConformanceReport.SentRequest) -> String {
        func quoted(_ text: String) -> String { "'" + text.replacing("'", with: "'\\''") + "'" }
        var parts = ["curl", "-sS", "-X", sent.method, quoted(sent.url)]
        for (name, value) in sent.headers.sorted(by: { $0.key < $1.key }) {
            parts += ["-H", quoted("\(name): \(value)")]
        }
        if sent.method != "GET" { parts += ["--data-raw", quoted(sent.body)] }
        return parts.joined(separator: " ")
    }
}
