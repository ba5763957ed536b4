import Dispatch
import Synchronization
import Testing

@testable import AppleIDMock

/// Every request asks the store whether the control record changed; on the memory store that
/// question must not wait for the tables' lock, which journal batches and sweeps hold.
@Suite("Memory store: the control record's revision")
struct MemoryStoreControlTests {
    @Test("an unchanged revision is answered while another thread holds the tables' lock")
    func unchangedWithoutTheLock() async throws {
        let store = MemoryStore()
        try await store.transaction { try await $0.put(Spaces.control, ControlState.key, ControlState(scenario: "a")) }
        let known = try await store.control(ifChangedFrom: nil).revision

        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let released = Atomic<Bool>(false)
        DispatchQueue.global().async {
            store.tables.withLock { _ in
                holding.signal()
                // Bounded, so that a store that does wait for the lock fails this test instead of hanging it.
                _ = release.wait(timeout: .now() + .seconds(2))
                released.store(true, ordering: .sequentiallyConsistent)
            }
        }
        holding.wait()
        let answer = try await store.control(ifChangedFrom: known)
        let answeredWhileHeld = !released.load(ordering: .sequentiallyConsistent)
        release.signal()
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
