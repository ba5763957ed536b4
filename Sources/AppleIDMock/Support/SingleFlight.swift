/// Work done once per key at a time: the first caller for a key runs it, and callers that come
/// while it runs wait for its result (or its error) instead of doing the same work again. When the
/// caller running it is cancelled, the waiters do not take its cancellation: one of them runs the
/// work again.
actor SingleFlight<Key: Hashable & Sendable, Value: Sendable> {
    /// The callers waiting on each key's work under way.
    private var waiting: [Key: [CheckedContinuation<Value, any Error>]] = [:]

    /// What a waiter gets when the caller running the work was cancelled: run it again.
    private struct RunnerCancelled: Error {}

    /// `work`'s result for `key`: run now, or, while another caller runs it, that run's result.
    func run(_ key: Key, _ work: @Sendable () async throws -> Value) async throws -> Value {
        while waiting[key] != nil {
            do {
                return try await withCheckedThrowingContinuation { waiting[key, default: []].append($0) }
            } catch is RunnerCancelled {
                continue
            }
        }
        waiting[key] = []
        let result: Result<Value, any Error>
        do {
            result = .success(try await work())
        } catch {
            result = .failure(error)
        }
        let theirs: Result<Value, any Error> =
            if case .failure(let error) = result, error is CancellationError || Task.isCancelled {
                .failure(RunnerCancelled())
            } else {
                result
            }
        for waiter in waiting.removeValue(forKey: key) ?? [] { waiter.resume(with: theirs) }
        return try result.get()
    }

    /// How many callers wait on `key`'s work under way (for tests).
    func waiters(for key: Key) -> Int {
        waiting[key]?.count ?? 0
    }
}
