import Synchronization
import Testing

@testable import AppleIDMock

/// Lets a test hold the worker inside a batch until it says so.
final class BatchGate: Sendable {
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if !state.open { state.waiting.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
    }

    func open() {
        for waiter in state.withLock({ state in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }) { waiter.resume() }
    }
}

/// The sizes of the batches a worker was given.
final class BatchSizes: Sendable {
    let sizes = Mutex<[Int]>([])
}

/// The queue that lets concurrent PostgreSQL steps share statements, without a database: who shares
/// a batch, and what a caller is told when it is cancelled, waits too long, or comes too late.
@Suite("Shared statements: the batch queue")
struct BatchQueueTests {
    @Test("requests that come while the worker is busy share its next batch, answered in order")
    func sharing() async throws {
        let queue = BatchQueue<Int, Int>(limit: 100, timeout: .seconds(30), timeoutCause: "slow")
        let recorded = BatchSizes()
        let gate = BatchGate()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await queue.run(workers: 1, closing: "closed") { batch in
                    recorded.sizes.withLock { $0.append(batch.count) }
                    await gate.wait()
                    return batch.map { .success($0 * 10) }
                }
            }
            let first = Task { try await queue.submit(1) }
            while recorded.sizes.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(1)) }
            let rest = (2...11).map { value in Task { try await queue.submit(value) } }
            // Each of the ten is queued before the worker is let go.
            try await Task.sleep(for: .milliseconds(100))
            gate.open()
            #expect(try await first.value == 10)
            for (offset, task) in rest.enumerated() { #expect(try await task.value == (offset + 2) * 10) }
            #expect(recorded.sizes.withLock { $0 } == [1, 10])
            group.cancelAll()
        }
    }

    @Test("a caller that waits past its deadline is told of an outage; the late answer is dropped")
    func deadline() async throws {
        let queue = BatchQueue<Int, Int>(limit: 100, timeout: .milliseconds(50), timeoutCause: "no answer in 50 ms")
        let gate = BatchGate()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await queue.run(workers: 1, closing: "closed") { batch in
                    await gate.wait()
                    return batch.map { .success($0) }
                }
            }
            do {
                _ = try await queue.submit(1)
                Issue.record("answered though the worker never did")
            } catch let failure as StoreUnavailable {
                #expect(failure.isOutage && failure.cause == "no answer in 50 ms")
            }
            gate.open()
            group.cancelAll()
        }
    }

    @Test("a cancelled caller is answered at once; after the workers stop, requests are refused")
    func cancelAndClose() async throws {
        let queue = BatchQueue<Int, Int>(limit: 100, timeout: .seconds(30), timeoutCause: "slow")
        let gate = BatchGate()
        let worker = Task {
            await queue.run(workers: 1, closing: "the server is shutting down") { batch in
                await gate.wait()
                return batch.map { .success($0) }
            }
        }
        let waiting = Task { try await queue.submit(1) }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        worker.cancel()
        gate.open()
        await worker.value
        do {
            _ = try await queue.submit(2)
            Issue.record("a stopped queue answered")
        } catch let failure as StoreUnavailable {
            #expect(failure.cause == "the server is shutting down")
        }
    }
}
