import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The newest epoch this replica has seen (resets and switches move it on), and a way to wait until
/// it moves: a delivery under way for an older epoch is cut short, so nothing from before a reset
/// reaches a receiver after it.
final class EpochWatch: Sendable {
    /// The epoch and who waits for it to change.
    private struct State: ~Copyable {
        var epoch = 0
        var waiters: [UUID: (epoch: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
    }

    private let state = Mutex(State())

    /// The newest epoch seen.
    var epoch: Int { state.withLock { $0.epoch } }

    /// How many waits are under way (for tests: a wait has begun, a change woke it or left it).
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Records that `epoch` is in force; wakes those waiting on an older one.
    func observe(_ epoch: Int) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard epoch > state.epoch else { return [] }
            state.epoch = epoch
            let stale = state.waiters.filter { $0.value.epoch < epoch }
            for id in stale.keys { state.waiters[id] = nil }
            return stale.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Returns once an epoch after `epoch` is in force (work of `epoch` is then void), or when the
    /// task is cancelled. Work of an epoch this replica has not seen yet is not void.
    func waitUntilSuperseded(_ epoch: Int) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    guard state.epoch <= epoch, !Task.isCancelled else { return true }
                    state.waiters[id] = (epoch, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }
}
