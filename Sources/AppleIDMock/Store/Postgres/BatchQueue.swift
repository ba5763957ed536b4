import Synchronization

/// Requests from concurrent steps that wait to share one statement: a caller submits its request and
/// waits; a worker (run by the store's service, `PostgresBatches.run`: `open`, then `work` on each
/// worker and `watch`, then `close`) takes everything waiting, answers it with one round trip to the
/// database, and takes what arrived meanwhile next. An idle worker takes a request at
/// once; once every worker is busy, requests queue and share the next statement, so the round
/// trips per request fall as the load rises.
///
/// A caller waits at most `timeout`: a watchdog answers it with an outage after that, whether or
/// not its request was taken (a database that does not answer is not waited for). A caller
/// cancelled while it waits is answered with `CancellationError` at once. Either way the worker's
/// answer then finds no one waiting.
final class BatchQueue<Request: Sendable, Response: Sendable>: Sendable {
    /// A request with its waiting caller.
    private struct Waiting {
        var id: UInt64
        var request: Request
        var caller: Caller
    }

    /// A waiting caller and when it stops waiting.
    private struct Caller {
        var continuation: CheckedContinuation<Response, any Error>
        var deadline: ContinuousClock.Instant
    }

    /// The requests waiting, the ones taken by a worker, and the idle workers.
    private struct State {
        var nextId: UInt64 = 0
        var waiting: [Waiting] = []
        var taken: [UInt64: Caller] = [:]
        /// Set once the workers stopped: why requests are refused.
        var closed: String?
        /// Workers waiting for a request.
        var idle: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    /// At most this many requests go into one statement.
    private let limit: Int
    /// How long a caller waits for its answer.
    private let timeout: Duration
    /// What a caller that waited too long is told.
    private let timeoutCause: String

    init(limit: Int, timeout: Duration, timeoutCause: String) {
        self.limit = limit
        self.timeout = timeout
        self.timeoutCause = timeoutCause
    }

    /// Queues `request` and returns the loop's answer to it.
    func submit(_ request: Request) async throws -> Response {
        let id = state.withLock { state in
            state.nextId += 1
            return state.nextId
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let caller = Caller(continuation: continuation, deadline: .now + timeout)
                let (refusal, worker) = state.withLock { state -> ((any Error)?, CheckedContinuation<Void, Never>?) in
                    // Checked under the lock: a cancellation before this point finds no request to answer.
                    if Task.isCancelled { return (CancellationError(), nil) }
                    if let closed = state.closed { return (StoreUnavailable(cause: closed), nil) }
                    state.waiting.append(Waiting(id: id, request: request, caller: caller))
                    return (nil, state.idle.popLast())
                }
                if let refusal { continuation.resume(throwing: refusal) }
                worker?.resume()
            }
        } onCancel: {
            let caller = state.withLock { state -> Caller? in
                if let index = state.waiting.firstIndex(where: { $0.id == id }) {
                    return state.waiting.remove(at: index).caller
                }
                return state.taken.removeValue(forKey: id)
            }
            caller?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Accepts requests (again).
    func open() { state.withLock { $0.closed = nil } }

    /// Refuses what waits and what comes, with `closing` (once every worker stopped).
    func close(_ closing: String) {
        let stranded = state.withLock { state in
            state.closed = closing
            defer {
                state.waiting.removeAll()
                state.taken.removeAll()
            }
            return state.waiting.map(\.caller) + Array(state.taken.values)
        }
        for caller in stranded { caller.continuation.resume(throwing: StoreUnavailable(cause: closing)) }
    }

    /// Four times a second, answers the callers that waited longer than `timeout` with an outage
    /// (until the task is cancelled).
    func watch() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(250))
            let now = ContinuousClock.now
            let overdue = state.withLock { state -> [Caller] in
                var overdue: [Caller] = []
                state.waiting.removeAll { waiting in
                    guard waiting.caller.deadline < now else { return false }
                    overdue.append(waiting.caller)
                    return true
                }
                for (id, caller) in state.taken where caller.deadline < now {
                    overdue.append(caller)
                    state.taken[id] = nil
                }
                return overdue
            }
            for caller in overdue {
                caller.continuation.resume(throwing: StoreUnavailable(cause: timeoutCause, isOutage: true))
            }
        }
    }

    /// One worker: takes what waits, answers it, and waits for more when nothing does, until the task
    /// is cancelled. It also returns, taking nothing, once `isUsable` says no (its connection
    /// closed), and once a batch failed with an error `ends` (the batch is answered with it).
    func work(
        isUsable: @Sendable () -> Bool = { true }, ends: @Sendable (any Error) -> Bool = { _ in false },
        _ perform: @Sendable ([Request]) async throws -> [Result<Response, any Error>]
    ) async {
        defer {
            // A worker that leaves may have been the one woken for a request: wake another.
            let next = state.withLock { state in state.waiting.isEmpty ? nil : state.idle.popLast() }
            next?.resume()
        }
        while !Task.isCancelled, isUsable() {
            let batch = state.withLock { state -> [(id: UInt64, request: Request)] in
                let count = min(state.waiting.count, limit)
                guard count > 0 else { return [] }
                let taken = state.waiting.prefix(count)
                for waiting in taken { state.taken[waiting.id] = waiting.caller }
                state.waiting.removeFirst(count)
                return taken.map { ($0.id, $0.request) }
            }
            guard !batch.isEmpty else {
                await idle()
                continue
            }
            var answers: [Result<Response, any Error>]
            var ended = false
            do {
                answers = try await perform(batch.map(\.request))
            } catch {
                answers = Array(repeating: .failure(error), count: batch.count)
                ended = ends(error)
            }
            if answers.count != batch.count {
                let miscount = StoreUnavailable(cause: "a batch of \(batch.count) got \(answers.count) answers")
                answers = Array(repeating: .failure(miscount), count: batch.count)
            }
            let continuations = state.withLock { state in batch.map { state.taken.removeValue(forKey: $0.id) } }
            for (caller, answer) in zip(continuations, answers) { caller?.continuation.resume(with: answer) }
            if ended { return }
        }
    }

    /// Waits until a request comes (or the task is cancelled: every idle worker is woken).
    private func idle() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    guard state.waiting.isEmpty, !Task.isCancelled else { return true }
                    state.idle.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            for worker in state.withLock({ state in
                defer { state.idle.removeAll() }
                return state.idle
            }) { worker.resume() }
        }
    }
}
