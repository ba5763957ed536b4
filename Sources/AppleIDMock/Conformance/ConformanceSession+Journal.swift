#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the backend did at the mock during a case, from the journals.
extension ConformanceSession {
    /// The run's journal entries written since the last case, and the JWKS fetches the default
    /// namespace answered since `start`: a backend on Apple's unprefixed `/auth/keys` is answered,
    /// and journaled, there (the run's codes carry its namespace; a JWKS fetch carries nothing).
    mutating func journal(since start: Date) async -> [ConformanceReport.JournalNote] {
        var notes: [ConformanceReport.JournalNote] = []
        if let entries = try? await state.journal(recorder: runner.journal) {
            for entry in entries where seenJournal.insert(entry.id).inserted {
                notes.append(.init(endpoint: entry.endpoint, status: entry.status, outcome: entry.outcome.description))
            }
        }
        let home = runner.namespaces.defaultState
        guard !state.scope.isDefault, let entries = try? await home.journal(recorder: runner.journal) else {
            return notes
        }
        for entry in entries
        where entry.endpoint == ApplePath.keys && entry.wallTime >= start && seenJournal.insert(entry.id).inserted {
            notes.append(
                .init(
                    endpoint: entry.endpoint, status: entry.status, outcome: entry.outcome.description,
                    namespace: home.scope.name,
                    note:
                        "a fetch of the unprefixed /auth/keys during the case; the journal does not record who fetched, so on a shared mock another client's fetch may show here"
                ))
        }
        return notes
    }
}
