import NIOPosix
import Synchronization
import Testing

@testable import AppleIDMock

/// The memory store's lock: one holder at a time, and never held for a waiter that is not running.
@Suite("Async lock")
struct AsyncLockTests {
    /// A value that tasks share under a mutex.
    final class Shared<Value: Sendable>: Sendable {
        let mutex: Mutex<Value>
        init(_ value: Value) { mutex = Mutex(value) }
        func callAsFunction<T>(_ body: (inout sending Value) -> sending T) -> sending T { mutex.withLock(body) }
    }

    @Test("letting go frees the lock even while someone waits: a woken waiter takes it when it runs")
    func unlockFrees() async throws {
        // One thread runs both tasks, so the woken waiter cannot run before the holder looks.
        let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let executor = EventLoopTaskExecutor(loop: loop.next())
        let lock = AsyncLock()
        let (release, releaser) = AsyncStream.makeStream(of: Void.self)
        let waiterRan = Shared(false)
        let freeAfterUnlock = try await withTaskExecutorPreference(executor) {
            try await withThrowingTaskGroup(of: Bool?.self) { group in
                group.addTask {
                    await lock.withLock {
                        for await _ in release { break }
                    }
                    return !lock.isLocked
                }
                while !lock.isLocked { await Task.yield() }
                group.addTask {
                    await lock.withLock { waiterRan { $0 = true } }
                    return nil
                }
                while lock.waiting == 0 { await Task.yield() }
                releaser.yield()
                var free: Bool?
                for try await result in group { free = free ?? result }
                return free
            }
        }
        #expect(freeAfterUnlock == true)
        #expect(waiterRan { $0 })
        #expect(!lock.isLocked)
        try await loop.shutdownGracefully()
    }

    @Test("under contention, with suspensions inside, one holder at a time and nobody lost")
    func mutualExclusion() async {
        let lock = AsyncLock()
        let counters = Shared((inside: 0, most: 0, done: 0))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<500 {
                group.addTask {
                    await lock.withLock {
                        counters {
                            $0.inside += 1
                            $0.most = max($0.most, $0.inside)
                        }
                        await Task.yield()
                        counters {
                            $0.inside -= 1
                            $0.done += 1
                        }
                    }
                }
            }
        }
        let final = counters { $0 }
        #expect(final.most == 1)
        #expect(final.done == 500)
        #expect(!lock.isLocked)
        #expect(lock.waiting == 0)
    }
}
