import DequeModule
import Synchronization

/// A first-come, first-served lock for async code: uncontended it costs one mutex round trip; a
/// contended caller suspends until the holder hands the lock over.
final class AsyncLock: Sendable {
    /// Whether the lock is held, and who waits for it.
    private struct State: ~Copyable {
        var locked = false
        var waiters = Deque<CheckedContinuation<Void, Never>>()
    }

    private let state = Mutex(State())

    /// Runs `body` while holding the lock.
    func withLock<T>(_ body: () async throws -> T) async rethrows -> T {
        await lock()
        defer { unlock() }
        return try await body()
    }

    private func lock() async {
        let acquired = state.withLock { state in
            guard !state.locked else { return false }
            state.locked = true
            return true
        }
        guard !acquired else { return }
        await withCheckedContinuation { continuation in
            let acquiredNow = state.withLock { state in
                guard state.locked else {
                    state.locked = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if acquiredNow { continuation.resume() }
        }
    }

    private func unlock() {
        // The next waiter gets the lock as it is (still locked), so nobody can overtake it.
        let next = state.withLock { state in
            guard !state.waiters.isEmpty else {
                state.locked = false
                return CheckedContinuation<Void, Never>?.none
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
