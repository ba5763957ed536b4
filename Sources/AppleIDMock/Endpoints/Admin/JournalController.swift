import Foundation
import Hummingbird

/// `/__admin/journal`: what backends sent to `/auth/*` and how the mock answered, and every
/// notification attempt, newest first, with filters (`endpoint`, `clientId`, `user`, `outcome`,
/// `since`, `limit`); `DELETE` clears it.
struct JournalController: Sendable {
    let state: MockState
    /// The entries not yet written to the store.
    let journal: JournalRecorder

    func addRoutes(to group: RouterGroup<MockRequestContext>) {
        group.get(RouterPath(AdminPath.journal)) { request, _ in try await self.read(request) }
        group.delete(RouterPath(AdminPath.journal)) { _, _ in
            Responses.adminJSON(["cleared": try await self.state.clearJournal(recorder: self.journal)])
        }
    }

    private func read(_ request: Request) async throws -> Response {
        let query = try Self.query(request.uri.queryParameters)
        /// The answer.
        struct Listing: Encodable {
            var entries: [JournalEntry]
        }
        return Responses.adminJSON(
            Listing(entries: try await state.journal(query, recorder: journal)))
    }

    /// The filters of the query string, each checked.
    static func query(_ parameters: some Sequence<(key: Substring, value: Substring)>) throws -> JournalQuery {
        var query = JournalQuery()
        var reader = JSONReader()
        func problem(_ name: String, _ reason: String) {
            reader.report(.query(name), reason)
        }
        let endpoints = FaultRule.Endpoint.allCases.map(\.rawValue) + ["smtp"]  // smtp: the email relay
        for (key, rawValue) in parameters {
            let value = String(rawValue)
            switch key {
            case "endpoint":
                if endpoints.contains(value) {
                    query.endpoint = value
                } else {
                    problem("endpoint", "\"\(value)\" is not one of: \(endpoints.joined(separator: ", "))")
                }
            case "clientId": query.clientId = value
            case "user": query.user = value
            case "outcome": query.outcome = value
            case "since":
                if let seconds = Double(value), seconds.isFinite {
                    query.since = Date(timeIntervalSince1970: seconds)
                } else if let date = ISO8601Instant.parse(value) {
                    query.since = date
                } else {
                    problem("since", "expected epoch seconds or an ISO 8601 date-time such as 2026-01-01T00:00:00Z")
                }
            case "limit":
                if let limit = Int(value), (1...100_000).contains(limit) {
                    query.limit = limit
                } else {
                    problem("limit", "expected a whole number in 1...100000")
                }
            default:
                problem(String(key), "unknown filter; filters: endpoint, clientId, user, outcome, since, limit")
            }
        }
        if let error = reader.error(file: "request") { throw error }
        return query
    }
}
