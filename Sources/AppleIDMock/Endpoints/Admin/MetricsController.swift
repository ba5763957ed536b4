import Hummingbird

/// `GET /metrics`: the mock's metrics in Prometheus's text format (version 0.0.4). Guarded like
/// the control plane (the admin token, when one is set). What the store holds (live grants,
/// notifications by status, the mailbox by outcome) is counted at each scrape.
struct MetricsController: Sendable {
    /// Every namespace: notifications and the mailbox are counted across all of them, as grants are
    /// (codes and tokens share their spaces).
    let namespaces: Namespaces

    func addRoutes(to router: some RouterMethods<WorldRequestContext>) {
        router.get(RouterPath(ServerPath.metrics)) { _, _ in try await self.scrape() }
    }

    private func scrape() async throws -> Response {
        // What the store and the process hold is one for every namespace: read through the default's world.
        let state = namespaces.defaultState
        var holdings = MockMetrics.Holdings(waitingReads: state.store.watch.readers)
        holdings.grants = try await state.store.entryCounts(MockMetrics.grantSpaces)
        for world in try await namespaces.allStates() {
            for record in try await world.notifications() { holdings.notifications[record.status, default: 0] += 1 }
            for record in try await world.mail.records() {
                holdings.mail[MailboxOutcomeLabel(record), default: 0] += 1
            }
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: state.metrics.page(holdings))))
    }
}
