import DequeModule
import Synchronization

/// A lock for async code: uncontended it costs one mutex round trip; a contended caller suspends
/// until the holder lets go.
///
/// Letting go frees the lock and wakes the longest waiter, which then takes the lock if it is still
/// free or waits again at the head of the line. The lock is not handed to the waiter: a woken task
/// may sit behind other work on its executor (on an event loop, behind whole requests), and a lock
/// held for a task that is not yet running stalls everyone else behind it. The price is fairness:
/// a caller that finds the lock free takes it, even ahead of a woken waiter that has not run yet.
final class AsyncLock: Sendable {
    /// Whether the lock is held, and who waits for it.
    private struct State: ~Copyable {
        var locked = false
        var waiters = Deque<CheckedContinuation<Void, Never>>()
    }

    private let state = Mutex(State())

    /// Whether someone holds the lock (for tests).
    var isLocked: Bool { state.withLock { $0.locked } }

    /// How many callers wait for the lock (for tests).
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Runs `body` while holding the lock.
    func withLock<T>(_ body: () async throws -> T) async rethrows -> T {
        await lock()
        defer { unlock() }
        return try await body()
    }

    private func lock() async {
        var woken = false
        while !tryLock() {
            let again = woken
            var queued = false
            await withCheckedContinuation { continuation in
                queued = state.withLock { state in
                    guard state.locked else { return false }
                    // A waiter woken by `unlock` that lost the race goes back to the head of the line.
                    if again {
                        state.waiters.prepend(continuation)
                    } else {
                        state.waiters.append(continuation)
                    }
                    return true
                }
                if !queued { continuation.resume() }
            }
            woken = woken || queued
        }
    }

    private func tryLock() -> Bool {
        state.withLock { state in
            guard !state.locked else { return false }
            state.locked = true
            return true
        }
    }

    private func unlock() {
        let next = state.withLock { state in
            state.locked = false
            return state.waiters.popFirst()
        }
        next?.resume()
    }
}
