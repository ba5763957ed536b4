import Synchronization
import Testing

@testable import AppleIDMock

/// A one-way event: `wait` returns once `open` was called (at once after). A test holds the worker
/// inside a batch with one, and learns that the worker took a batch with another.
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
/// a batch, and what a caller is told when it is cancelled, waits too long, or comes too late. The
/// queue is served as `PostgresBatches.run` serves it: `open`, one `work`er and the `watch`, then
/// `close`.
@Suite("Shared statements: the batch queue")
struct BatchQueueTests {
    /// Serves `queue` with one worker answering with `perform` until the task is cancelled, then
    /// refuses what waits and what comes with `closing`.
    private static func serve(
        _ queue: BatchQueue<Int, Int>, closing: String = "closed",
        _ perform: @escaping @Sendable ([Int]) async throws -> [Result<Int, any Error>]
    ) async {
        queue.open()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await queue.work(perform) }
            group.addTask { await queue.watch() }
        }
        queue.close(closing)
    }

    @Test("requests that come while the worker is busy share its next batch, answered in order")
    func sharing() async throws {
        let queue = BatchQueue<Int, Int>(limit: 100, timeout: .seconds(30), timeoutCause: "slow")
        let recorded = BatchSizes()
        let taken = BatchGate()
        let gate = BatchGate()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await Self.serve(queue) { batch in
                    recorded.sizes.withLock { $0.append(batch.count) }
                    taken.open()
                    await gate.wait()
                    return batch.map { .success($0 * 10) }
                }
            }
            let first = Task { try await queue.submit(1) }
            await taken.wait()
            // The worker holds the first batch. An immediate task runs here until it first
            // suspends, which is once its request is queued: each of the ten waits when the
            // worker is let go.
            let rest = (2...11).map { value in Task.immediate { try await queue.submit(value) } }
            gate.open()
            var answers = [try await first.value]
            for task in rest { answers.append(try await task.value) }
            #expect(answers == (1...11).map { $0 * 10 })
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
                await Self.serve(queue) { batch in
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
        let taken = BatchGate()
        let gate = BatchGate()
        let worker = Task {
            await Self.serve(queue, closing: "the server is shutting down") { batch in
                taken.open()
                await gate.wait()
                return batch.map { .success($0) }
            }
        }
        let waiting = Task { try await queue.submit(1) }
        // Cancelled while the worker holds its request: answered without the worker.
        await taken.wait()
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
