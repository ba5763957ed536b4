import DequeModule
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The request journal on the state: written in batches, read with filters, cleared. It is kept
/// across resets (it records what the backend did), bounded by the `journalLimit` setting.
extension MockState {
    /// Writes the entries waiting in `recorder`, each into its namespace's journal, one step per
    /// namespace; a revoke of a token the mock no longer holds is attributed to the user it was
    /// issued to, from the journal. Returns once everything recorded before the call is in the
    /// store, a batch another caller drained included. Any namespace's state can flush them all.
    func flushJournal(_ recorder: JournalRecorder) async throws {
        try await recorder.writingAlone {
            // Nothing waiting: no store read (this runs 10 times a second).
            guard !recorder.isEmpty else { return }
            // Read before draining: if the store is down, the entries stay buffered.
            _ = try await current()
            let (entries, dropped) = recorder.drain()
            if dropped > 0 {
                logger.warning("journal buffer full: entries dropped", metadata: ["idp.dropped": "\(dropped)"])
            }
            guard !entries.isEmpty else { return }
            let started = ContinuousClock.now
            defer { metrics.storeStep(.journal, ContinuousClock.now - started) }
            // Most batches are one namespace's: split only when they are not.
            let namespace = entries.first?.namespace ?? NamespaceName.default
            guard entries.contains(where: { ($0.namespace ?? NamespaceName.default) != namespace }) else {
                do {
                    return try await write(entries, in: namespace)
                } catch {
                    recorder.restore(entries)
                    throw error
                }
            }
            var groups: [String: Deque<JournalEntry>] = [:]
            for entry in entries { groups[entry.namespace ?? NamespaceName.default, default: []].append(entry) }
            var unwritten = Array(groups.keys.sorted())
            while let name = unwritten.first {
                do {
                    try await write(groups[name] ?? [], in: name)
                } catch {
                    // Each unwritten entry goes back once (the failed group's included).
                    for rest in unwritten { recorder.restore(groups[rest] ?? []) }
                    throw error
                }
                unwritten.removeFirst()
            }
        }
    }

    /// Writes `entries` (drained, in recording order) into the journal of the namespace `name`, with
    /// its limit; the caller gives them back to the recorder if the step fails (once: giving them
    /// back here too doubled them on every failed flush of a batch of several namespaces, until the
    /// full buffer dropped other entries). Entries of a namespace deleted meanwhile are dropped.
    private func write(_ entries: Deque<JournalEntry>, in name: String) async throws {
        let world = name == scope.name ? self : sibling(NamespaceScope(name: name))
        let control: ActiveScenario
        do {
            control = try await world.current()
        } catch is NamespaceGone {
            return
        }
        let limit = control.world.settings.journalLimit
        let clearedBefore = control.control.journalClearedBefore ?? ""
        try await world.store.transaction { transaction in
            try await Self.write(entries, limit: limit, clearedBefore: clearedBefore, transaction)
        }
    }

    /// Writes a drained batch (in the order it was recorded) within one store step.
    ///
    /// Only the newest `limit` (by id, as the journal is pruned) can outlast the prune that
    /// follows: under load a batch holds thousands (up to 250 ms of requests), and writing the rest only
    /// to delete them again would be wasted work. The older ones are read only for the
    /// tokens they handed out, so a revoke later in the batch is still attributed; an entry is
    /// copied only to be written.
    private static func write(
        _ entries: Deque<JournalEntry>, limit: Int, clearedBefore: String, _ transaction: any StateTransaction
    ) async throws {
        var owners: [String: (userKey: String?, sub: String?)]?
        // Tokens issued earlier in this same batch count too (a revoke right after the grant). The
        // batch is in the order the calls were answered, so an issuing call comes before any
        // call that uses what it issued.
        var issuedHere: [String: (userKey: String?, sub: String?)] = [:]
        let oldestWritten = Self.oldestKept(entries, limit: limit)
        var batch: [(key: String, value: JournalEntry)] = []
        batch.reserveCapacity(min(entries.count, limit))
        for index in entries.indices {
            let written = entries[index].id >= oldestWritten
            // What another replica buffered before a clear stays cleared.
            guard entries[index].id > clearedBefore, written || entries[index].issued != nil else { continue }
            var entry = entries[index]
            if entry.userKey == nil, let token = entry.fingerprints?["token"] ?? entry.fingerprints?["refresh_token"] {
                if issuedHere[token] == nil, owners == nil { owners = try await tokenOwners(transaction) }
                if let owner = issuedHere[token] ?? owners?[token] {
                    entry.userKey = owner.userKey
                    entry.sub = entry.sub ?? owner.sub
                }
            }
            if entry.userKey != nil {
                for fingerprint in (entry.issued ?? [:]).values {
                    issuedHere[fingerprint] = (entry.userKey, entry.sub)
                }
            }
            if written { batch.append((entry.id, entry)) }
        }
        // Stored oldest first by id, as they are listed (sorted in place: moved, not copied).
        batch.sort { $0.key < $1.key }
        try await transaction.putAll(Spaces.journal, batch)
        try await transaction.prune(Spaces.journal, keep: limit)
    }

    /// The smallest id among the newest `limit` entries of `entries`. An id is taken when a call
    /// starts and the entry recorded when it ends, so a slow call recorded last can be older than
    /// the ones recorded before it: the recording order does not say which entries are newest.
    static func oldestKept(_ entries: some Collection<JournalEntry>, limit: Int) -> String {
        guard entries.count > limit, limit > 0 else { return "" }
        var ids = entries.map(\.id)
        ids.sort(by: >)
        return ids[limit - 1]
    }

    /// Who each token or code handed out (as the journal recorded it) was issued to.
    private static func tokenOwners(_ transaction: any StateTransaction) async throws -> [String: (
        userKey: String?, sub: String?
    )] {
        var owners: [String: (userKey: String?, sub: String?)] = [:]
        for (_, entry) in try await transaction.list(Spaces.journal) where entry.userKey != nil {
            for fingerprint in (entry.issued ?? [:]).values { owners[fingerprint] = (entry.userKey, entry.sub) }
        }
        return owners
    }

    /// The journal's entries that pass `query`, newest first (what this replica still buffers is
    /// written first).
    func journal(_ query: JournalQuery, recorder: JournalRecorder) async throws -> [JournalEntry] {
        query.select(try await journal(recorder: recorder))
    }

    /// Every entry of the journal, oldest first (what this replica still buffers is written first).
    func journal(recorder: JournalRecorder) async throws -> [JournalEntry] {
        try await flushJournal(recorder)
        return try await store.transaction { try await $0.list(Spaces.journal).map(\.value) }
    }

    /// Every namespace's journal in one list, oldest first by id (`?namespace=*`).
    func journalOfEveryNamespace(recorder: JournalRecorder) async throws -> [JournalEntry] {
        try await flushJournal(recorder)
        let journals = try await EveryNamespace(base: base, locator: directory).each(includingDefault: true) {
            _, own in try await own.list(Spaces.journal).map(\.value)
        }
        return journals.joined().sorted { $0.id < $1.id }
    }

    /// Empties the journal, here and for entries other replicas still buffer (anything older than
    /// now is never written); returns how many entries it held.
    func clearJournal(recorder: JournalRecorder) async throws -> Int {
        try await recorder.writingAlone {
            // Only this namespace's waiting entries are dropped.
            let (waiting, _) = recorder.drain()
            recorder.restore(waiting.filter { ($0.namespace ?? NamespaceName.default) != scope.name })
            let watermark = recorder.nextId(at: Date())
            return try await changeControl { control, _, transaction in
                let count = try await transaction.list(Spaces.journal).count
                try await transaction.clear([Spaces.journal.name])
                control.journalClearedBefore = watermark
                return count
            }
        }
    }
}
