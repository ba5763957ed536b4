import Foundation

@testable import AppleIDMock

/// A test store over a memory store that changes only how its steps run (`transaction`): every
/// other call goes to `inner`, written once here for the stores that gate, hold or fail steps.
protocol DelegatingStore: StateStore {
    /// The store that does the work.
    var inner: MemoryStore { get }
}

extension DelegatingStore {
    func control(in space: String, ifChangedFrom known: Int64?) async throws -> (
        revision: Int64, value: ControlState?
    ) {
        try await inner.control(in: space, ifChangedFrom: known)
    }

    func claimDue<Value>(
        _ space: StoreSpace<Value>, now: Date, leaseUntil: Date, limit: Int,
        mark: @escaping @Sendable (inout Value) -> Void
    ) async throws -> [(space: String, key: String, value: Value)] {
        try await inner.claimDue(space, now: now, leaseUntil: leaseUntil, limit: limit, mark: mark)
    }

    func sweep(expiredBefore now: Date) async throws -> Int { try await inner.sweep(expiredBefore: now) }

    var watch: StoreWatch { inner.watch }

    func entryCounts(_ spaces: [String]) async throws -> [String: Int] { try await inner.entryCounts(spaces) }
}
