import Hummingbird

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `/__admin/journal`: what backends sent to `/auth/*` and how the mock answered, and every
/// notification attempt, newest first, with filters (`endpoint`, `clientId`, `user`, `outcome`,
/// `since`, `limit`; `namespace=*` on the default namespace's reads every namespace's), waiting with `waitSeconds` until `minCount` entries match; `DELETE` clears
/// it; `POST /__admin/journal/verify` checks a count or a sequence, with near misses when it fails.
struct JournalController: Sendable {
    /// The entries not yet written to the store.
    let journal: JournalRecorder

    func addRoutes(to group: RouterGroup<WorldRequestContext>) {
        group.get(RouterPath(AdminPath.journal)) { request, context in try await self.read(context.world, request) }
        group.post(RouterPath(AdminPath.journalVerify)) { request, context in
            try await self.verify(context.world, request)
        }
        group.delete(RouterPath(AdminPath.journal)) { _, context in
            Responses.adminJSON([
                "cleared": try await context.world.clearJournal(recorder: self.journal)
            ])
        }
    }

    private func read(_ state: MockState, _ request: Request) async throws -> Response {
        var wait = WaitingRead()
        let query = try Self.query(request.uri.queryParameters, wait: &wait)
        /// The answer: `matched` and `reached` when the call waited or gave `minCount`.
        struct Listing: Encodable {
            var entries: [JournalEntry]
            /// How many entries pass the filters (before `limit`).
            var matched: Int?
            /// Whether `minCount` (1 by default) entries passed them.
            var reached: Bool?
        }
        if query.everyNamespace, !state.scope.isDefault {
            throw ControlRefusal.invalidQuery(
                "namespace", "namespace=* reads every namespace from the default namespace's control plane only")
        }
        // Woken only once as many entries the filters pass were written (in this namespace, or any
        // with namespace=*) as the last read lacked: no read of the journal before it may be reached.
        let (matching, reached) = try await wait.run(
            .journal, watch: state.store.watch, in: state.scope, everyNamespace: query.everyNamespace,
            accepting: query.filtersEntries ? Self.admitting(query) : { _ in true },
            key: query.watchKey,
            shortfall: { wait.target - $0.count },
            checking: state,
            read: {
                let entries =
                    query.everyNamespace
                    ? try await state.journalOfEveryNamespace(recorder: self.journal)
                    : try await state.journal(recorder: self.journal)
                return query.matching(entries)
            },
            satisfied: { $0.count >= wait.target })
        return Responses.adminJSON(
            Listing(
                entries: query.newest(matching), matched: wait.isAsked ? matching.count : nil,
                reached: wait.isAsked ? reached : nil))
    }

    private func verify(_ state: MockState, _ request: Request) async throws -> Response {
        let asked = try VerificationRequest.read(try await AdminBody.json(request))
        let (outcome, _) = try await asked.wait.run(
            .journal, watch: state.store.watch, in: state.scope,
            checking: state, read: { asked.verification.check(try await state.journal(recorder: self.journal)) },
            satisfied: \.verified)
        return Responses.adminJSON(outcome, status: outcome.verified ? .ok : .unprocessableContent)
    }

    /// Whether a written value is an entry `query` admits (what a waiting read counts).
    private static func admitting(_ query: JournalQuery) -> @Sendable (any Sendable) -> Bool {
        { ($0 as? JournalEntry).map(query.admits) ?? false }
    }

    /// The filters of the query string, each checked.
    static func query(
        _ parameters: some Sequence<(key: Substring, value: Substring)>, wait: inout WaitingRead
    ) throws -> JournalQuery {
        var query = JournalQuery()
        var reader = JSONReader()
        func problem(_ name: String, _ reason: String) {
            reader.report(.query(name), reason)
        }
        let endpoints = JournalEndpoint.all
        for (key, rawValue) in parameters {
            let value = String(rawValue)
            switch key {
            case "endpoint":
                if endpoints.contains(value) {
                    query.endpoint = value
                } else {
                    problem("endpoint", "\"\(value)\" is not one of: \(endpoints.joined(separator: ", "))")
                }
            case "namespace":
                if value == "*" {
                    query.everyNamespace = true
                } else {
                    problem(
                        "namespace",
                        "only * (every namespace) is accepted; name one namespace with the /ns/{name} prefix or the \(NamespaceName.header) header"
                    )
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
                if wait.read(key, value, into: &reader) { continue }
                problem(
                    String(key),
                    "unknown filter; filters: endpoint, clientId, user, outcome, since, limit, namespace, waitSeconds, minCount"
                )
            }
        }
        try reader.refuseQueryIfInvalid()
        return query
    }
}
