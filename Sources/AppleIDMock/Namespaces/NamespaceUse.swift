import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// When each namespace was last used here (wall clock), kept until the housekeeping writes it to
/// the namespace's record: a request does not write its namespace's record.
final class NamespaceUse: Sendable {
    private let touched = Mutex<[String: Date]>([:])
    let clock: WallClock

    init(clock: WallClock) {
        self.clock = clock
    }

    /// Notes that `name` was used now.
    func touch(_ name: String) {
        guard name != NamespaceName.default else { return }
        let now = clock.now()
        touched.withLock { $0[name] = now }
    }

    /// Whether a use of `name` was noted and not written yet.
    func isPending(_ name: String) -> Bool {
        touched.withLock { $0[name] != nil }
    }

    /// Forgets the uses of `name` (deleted).
    func forget(_ name: String) {
        _ = touched.withLock { $0.removeValue(forKey: name) }
    }

    /// Writes the uses noted since the last call to the records in `store` (the default namespace's),
    /// in one step; if it fails, they are noted again for the next call.
    func flush(to store: any StateStore) async throws {
        let uses = touched.withLock { touched in
            defer { touched = [:] }
            return touched
        }
        guard !uses.isEmpty else { return }
        do {
            try await store.transaction { transaction in
                for (name, at) in uses {
                    guard var record = try await transaction.get(Spaces.namespaces, name), record.lastUsedAt < at
                    else { continue }
                    record.lastUsedAt = at
                    try await transaction.put(Spaces.namespaces, name, record)
                }
            }
        } catch {
            touched.withLock { touched in
                for (name, at) in uses where (touched[name] ?? .distantPast) < at { touched[name] = at }
            }
            throw error
        }
    }
}
