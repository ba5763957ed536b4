import DequeModule
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The fetches of the attacker's routes (`AttackerController`), which the journal does not record:
/// a conformance run reads them to show whether the backend followed a token's `jku` or `x5u`
/// (a fetch that never came, with a wrong `mockUrl`, makes a vulnerable backend read as refusing).
/// Bounded: the newest `limit` are kept.
final class AttackerFetches: Sendable {
    /// One fetch: when it came (wall clock), which route, and from where when known.
    struct Fetch: Sendable, Equatable {
        var at: Date
        var path: String
        var peer: String?
    }

    /// The most fetches kept.
    static let limit = 1_000

    private let fetches = Mutex(Deque<Fetch>())

    init() {}

    /// Records a fetch of `path` from `peer` at `at`.
    func record(_ path: String, peer: String?, at: Date = Date()) {
        fetches.withLock { fetches in
            if fetches.count >= Self.limit { fetches.removeFirst(fetches.count - Self.limit + 1) }
            fetches.append(Fetch(at: at, path: path, peer: peer))
        }
    }

    /// The fetches kept that came at or after `start`, oldest first.
    func since(_ start: Date) -> [Fetch] {
        fetches.withLock { fetches in
            // Recorded in the order they came: only the newest are looked at.
            var found: [Fetch] = []
            for fetch in fetches.reversed() {
                guard fetch.at >= start else { break }
                found.append(fetch)
            }
            return found.reversed()
        }
    }

    /// How many are kept (for tests).
    var count: Int { fetches.withLock { $0.count } }
}
