#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the backend did at the mock during a case, from the journals and the attacker's routes.
extension ConformanceSession {
    /// `results` with the calls the backend made at the mock in each one's window
    /// (`ConformanceJournalWindows`): the run's journal entries, the JWKS fetches the default
    /// namespace answered (a backend on Apple's unprefixed `/auth/keys` is answered, and journaled,
    /// there: the run's codes carry its namespace, a JWKS fetch carries nothing), and the fetches of
    /// the attacker's routes. Called just before the results are recorded, after at least one more
    /// send (a recheck, the calibration's probe) closed the last one's window; a read flushes what
    /// this replica buffers, and lists only the entries since the oldest window still open.
    mutating func withJournal(_ results: [ConformanceReport.CaseResult]) async -> [ConformanceReport.CaseResult] {
        guard let from = sends.first, results.contains(where: { $0.sentAt != nil }) else { return results }
        let notes = await notes(since: from)
        let attributed = ConformanceJournalWindows.attribute(notes, sends: sends, owners: results.map(\.sentAt))
        // Only the last window may still get calls: the earlier ones' results are recorded now.
        sends = Array(sends.suffix(1))
        return zip(results, attributed).map { result, notes in
            var result = result
            result.journal += notes
            return result
        }
    }

    /// Every call at the mock since `start` that a case's journal shows.
    private func notes(since start: Date) async -> [ConformanceJournalWindows.Timed] {
        var notes: [ConformanceJournalWindows.Timed] = []
        if let entries = try? await state.journal(since: start, recorder: runner.journal) {
            notes += entries.map {
                .init(
                    at: $0.wallTime,
                    note: .init(endpoint: $0.endpoint, status: $0.status, outcome: $0.outcome.description))
            }
        }
        let home = runner.namespaces.defaultState
        if !state.scope.isDefault, let entries = try? await home.journal(since: start, recorder: runner.journal) {
            notes += entries.filter { $0.endpoint == ApplePath.keys }.map {
                .init(
                    at: $0.wallTime,
                    note: .init(
                        endpoint: $0.endpoint, status: $0.status, outcome: $0.outcome.description,
                        namespace: home.scope.name,
                        note:
                            "a fetch of the unprefixed /auth/keys during the case; the journal does not record who fetched, so on a shared mock another client's fetch may show here"
                    ))
            }
        }
        notes += runner.attackerFetches.since(start).map { fetch in
            .init(at: fetch.at, note: Self.note(of: fetch))
        }
        return notes
    }

    /// The journal note of a fetch of the attacker's routes.
    static func note(of fetch: AttackerFetches.Fetch) -> ConformanceReport.JournalNote {
        let what =
            fetch.path == AttackerPath.jwks
            ? "the backend fetched the attacker's key list (the jku of key-header-injection), which only a backend that follows a token's jku does"
            : "the backend fetched the attacker's certificate (the x5u of key-header-injection), which only a backend that follows a token's x5u does"
        let from = fetch.peer.map { " (from \($0))" } ?? ""
        return .init(
            endpoint: fetch.path, status: 200, outcome: "ok",
            note: what + from
                + "; the fetch names no run, so on a shared mock another run's backend may show here")
    }
}
