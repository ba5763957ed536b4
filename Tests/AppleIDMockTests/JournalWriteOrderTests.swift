import Foundation
import Logging
import Synchronization
import Testing

@testable import AppleIDMock

/// A journal batch on its way to the store: a journal read waits for it (so a call made before the
/// read is listed), and a clear waits for it (so it is not written after the clear).
@Suite("Journal: one batch on its way at a time")
struct JournalWriteOrderTests {
    /// A memory store whose next transaction, once the gate is armed, waits until it is opened.
    final class GatedStore: DelegatingStore {
        let inner = MemoryStore()
        private let gate = Mutex((armed: false, holding: false))
        private let opened: AsyncStream<Void>
        private let opener: AsyncStream<Void>.Continuation

        init() { (opened, opener) = AsyncStream.makeStream(of: Void.self) }

        /// The next transaction waits at the gate.
        func arm() { gate.withLock { $0.armed = true } }

        /// Whether a transaction waits at the gate.
        var isHolding: Bool { gate.withLock { $0.holding } }

        /// Lets the waiting transaction go on.
        func open() { opener.yield() }

        func transaction<Result: Sendable>(_ body: @escaping @Sendable (any StateTransaction) async throws -> Result)
            async throws -> Result
        {
            let gated = gate.withLock { gate in
                defer { gate.armed = false }
                gate.holding = gate.armed
                return gate.armed
            }
            if gated {
                for await _ in opened { break }
                gate.withLock { $0.holding = false }
            }
            return try await inner.transaction(body)
        }

        var description: String { "gated memory" }
    }

    /// Whether a task has finished.
    final class Finished: Sendable {
        private let flag = Atomic<Bool>(false)
        var value: Bool { flag.load(ordering: .sequentiallyConsistent) }
        func set() { flag.store(true, ordering: .sequentiallyConsistent) }
    }

    /// The bundled default scenario on a gated store, its state loaded, one entry recorded.
    private static func services() async throws -> (MockServices, GatedStore, recorded: String) {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let store = GatedStore()
        let services = try await MockServices.load(
            configuration: Fixture.configuration(), store: store, clock: .fixed(at: Fixture.start), logger: logger)
        _ = try await services.state.current()
        let id = services.journal.nextId(at: Date())
        services.journal.record(
            JournalEntry(
                id: id, at: Fixture.start, wallTime: Date(), endpoint: "keys", outcome: .ok, latencyMilliseconds: 0))
        return (services, store, id)
    }

    /// Checks `condition` until it holds, for 5 s at most.
    @Test("a journal read waits for a batch that another flush drained and has not yet written")
    func readWaitsForBatchOnItsWay() async throws {
        let (services, store, recorded) = try await Self.services()
        store.arm()
        let listed = try await withThrowingTaskGroup(of: [String]?.self) { group in
            group.addTask {
                try await services.state.flushJournal(services.journal)
                return nil
            }
            #expect(
                try await Waiting.until(seconds: 5, every: .milliseconds(1)) { store.isHolding },
                "the flush's write waits at the gate")
            #expect(services.journal.isEmpty)
            let read = Finished()
            group.addTask {
                defer { read.set() }
                return try await services.state.journal(JournalQuery(), recorder: services.journal).map(\.id)
            }
            #expect(
                try await Waiting.until(seconds: 5, every: .milliseconds(1)) {
                    read.value || services.journal.waitingToWrite > 0
                })
            store.open()
            var listed: [String] = []
            for try await ids in group { listed += ids ?? [] }
            return listed
        }
        #expect(listed == [recorded])
    }

    @Test("a clear waits for a batch drained before it, which then is not written after it")
    func clearWaitsForBatchOnItsWay() async throws {
        let (services, store, _) = try await Self.services()
        store.arm()
        let cleared = try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask {
                try await services.state.flushJournal(services.journal)
                return nil
            }
            #expect(
                try await Waiting.until(seconds: 5, every: .milliseconds(1)) { store.isHolding },
                "the flush's write waits at the gate")
            let clear = Finished()
            group.addTask {
                defer { clear.set() }
                return try await services.state.clearJournal(recorder: services.journal)
            }
            #expect(
                try await Waiting.until(seconds: 5, every: .milliseconds(1)) {
                    clear.value || services.journal.waitingToWrite > 0
                })
            store.open()
            var cleared: [Int] = []
            for try await count in group { cleared += count.map { [$0] } ?? [] }
            return cleared
        }
        #expect(cleared == [1])
        #expect(try await services.state.journal(JournalQuery(), recorder: services.journal).isEmpty)
    }
}
