import Dispatch
import Synchronization
import Testing

@testable import AppleIDMock

/// Every request asks the store whether the control record changed; on the memory store that
/// question must not wait for the tables' lock, which journal batches and sweeps hold.
@Suite("Memory store: the control record's revision")
struct MemoryStoreControlTests {
    /// A thread holding a store's tables' lock until `release` is signalled, for 5 s at most (so that
    /// a store that waits for the lock fails the test instead of hanging it).
    private final class LockHolder: Sendable {
        private let release = DispatchSemaphore(value: 0)
        private let released = Atomic<Bool>(false)

        /// Returns once the other thread holds the lock (a blocking wait, kept out of async code).
        init(_ store: MemoryStore) {
            let holding = DispatchSemaphore(value: 0)
            DispatchQueue.global().async { [self] in
                store.tables.withLock { _ in
                    holding.signal()
                    _ = self.release.wait(timeout: .now() + .seconds(5))
                    self.released.store(true, ordering: .sequentiallyConsistent)
                }
            }
            holding.wait()
        }

        /// Whether the lock is still held.
        var isHolding: Bool { !released.load(ordering: .sequentiallyConsistent) }

        /// Lets the lock go.
        func letGo() { release.signal() }
    }

    @Test("an unchanged revision is answered while another thread holds the tables' lock")
    func unchangedWithoutTheLock() async throws {
        let store = MemoryStore()
        try await store.transaction { try await $0.put(Spaces.control, ControlState.key, ControlState(scenario: "a")) }
        let known = try await store.control(ifChangedFrom: nil).revision

        let holder = LockHolder(store)
        let answer = try await store.control(ifChangedFrom: known)
        let answeredWhileHeld = holder.isHolding
        holder.letGo()
        #expect(answeredWhileHeld)
        #expect(answer.revision == known && answer.value == nil)
    }

    @Test("a change is seen by the next question, and a stale revision gets the record")
    func changeSeen() async throws {
        let store = MemoryStore()
        try await store.transaction { try await $0.put(Spaces.control, ControlState.key, ControlState(scenario: "a")) }
        let first = try await store.control(ifChangedFrom: nil)
        try await store.transaction { try await $0.put(Spaces.control, ControlState.key, ControlState(scenario: "b")) }
        let second = try await store.control(ifChangedFrom: first.revision)
        #expect(second.revision > first.revision)
        #expect(second.value?.scenario == "b")
        #expect(try await store.control(ifChangedFrom: second.revision).value == nil)
        #expect(try await store.control(ifChangedFrom: nil).value?.scenario == "b")
    }
}
