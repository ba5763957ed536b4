import Foundation
import Synchronization
import Testing

@testable import AppleIDMock

/// The journaled memory store's group commit: steps that arrive while a write is under way share the
/// next one, each is answered only once durable, and a failed write undoes every step not yet
/// durable (and fails each of them, and a read that saw one).
@Suite("Group commit")
struct GroupCommitTests {
    /// A journal whose writes wait at a gate while it is closed, and fail while `failing` is set;
    /// it records how many entries each write carried.
    final class GatedJournal: StoreJournal {
        private struct State {
            var open = false
            var failing = false
            var waiting: [CheckedContinuation<Void, Never>] = []
            var started = 0
            var written: [Int] = []
        }

        private let state = Mutex(State())

        var started: Int { state.withLock { $0.started } }
        var written: [Int] { state.withLock { $0.written } }

        func write(_ changes: StoreChanges) async throws {
            await withCheckedContinuation { gate in
                let wait = state.withLock { state in
                    state.started += 1
                    if !state.open { state.waiting.append(gate) }
                    return !state.open
                }
                if !wait { gate.resume() }
            }
            let fails = state.withLock { state in
                if !state.failing { state.written.append(changes.writes.count + changes.cleared.count) }
                return state.failing
            }
            if fails { throw StoreUnavailable(cause: "the disk is full") }
        }

        /// Lets every write through from now on, failing them if `failing`.
        func open(failing: Bool = false) {
            let waiting = state.withLock { state in
                state.open = true
                state.failing = failing
                defer { state.waiting.removeAll() }
                return state.waiting
            }
            for gate in waiting { gate.resume() }
        }

        /// Makes writes wait again, and succeed once let through.
        func close() {
            state.withLock {
                $0.open = false
                $0.failing = false
            }
        }
    }

    /// What each step of a test ended with, whether the reader has read, how many steps were answered.
    final class Outcomes: Sendable {
        let steps = Mutex<[String: String]>([:])
        let read = Atomic(false)
        let answered = Atomic(0)
    }

    static let space = Spaces.relayOff

    static func marker(_ seconds: Double) -> Marker { Marker(at: Date(timeIntervalSince1970: seconds)) }

    static func visible(_ store: MemoryStore, _ key: String) -> Marker? {
        store.tables.withLock { $0.entry(EntryRef(space: space.name, key: key))?.value as? Marker }
    }

    /// "committed", or why the step failed.
    static func outcome(
        _ store: MemoryStore, _ step: @escaping @Sendable (any StateTransaction) async throws -> Void
    ) async -> String {
        do {
            try await store.transaction(step)
            return "committed"
        } catch let failure as StoreUnavailable {
            return failure.cause
        } catch {
            return "\(error)"
        }
    }

    @Test("the log hands out one batch at a time, in order, and a failure loses every step not yet durable")
    func logRules() {
        var log = CommitLog()
        let one = StoreChanges(writes: [EntryRef(space: "s", key: "1"): nil])
        #expect(log.append(one, undo: one) == 1)
        #expect(log.append(one, undo: one) == 2)
        guard case .write(let first) = log.turn(for: 2) else {
            Issue.record("the first waiter writes")
            return
        }
        #expect(first.map(\.lsn) == [1, 2])
        guard case .wait = log.turn(for: 1) else {
            Issue.record("a write is under way")
            return
        }
        #expect(log.append(one, undo: one) == 3)
        log.written()
        guard case .durable = log.turn(for: 1), case .write(let second) = log.turn(for: 3) else {
            Issue.record("1 and 2 are durable, 3 is written next")
            return
        }
        #expect(second.map(\.lsn) == [3])
        #expect(log.append(one, undo: one) == 4)
        #expect(log.failed(cause: "full").count == 2)  // 3 and 4, newest first
        #expect(log.generation == 1)
        guard case .lost("full") = log.turn(for: 4), case .durable = log.turn(for: 2) else {
            Issue.record("3 and 4 are lost, 2 stays durable")
            return
        }
    }

    @Test("the log keeps the newest failures only, and a step of a forgotten one is still not durable")
    func forgottenFailures() {
        var log = CommitLog()
        let one = StoreChanges(writes: [EntryRef(space: "s", key: "1"): nil])
        var first: Int64 = 0
        for index in 0...CommitLog.keptFailures {
            let lsn = log.append(one, undo: one)
            if index == 0 { first = lsn }
            guard case .write = log.turn(for: lsn) else {
                Issue.record("each step is written")
                return
            }
            _ = log.failed(cause: "full \(index)")
        }
        guard case .lost(let cause) = log.turn(for: first), case .lost("full 1") = log.turn(for: first + 2) else {
            Issue.record("the forgotten failure's step and the oldest kept one are lost")
            return
        }
        #expect(cause.contains("failed writes"))
        guard case .durable = log.turn(for: log.applied) else {
            Issue.record("the undone tables are durable")
            return
        }
    }

    @Test("steps that arrive while a write is under way share the next write, and each answers once durable")
    func stepsShareWrites() async throws {
        let journal = GatedJournal()
        let store = MemoryStore(journal: journal)
        let outcomes = Outcomes()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await store.transaction { try await $0.put(Self.space, "first", Self.marker(1)) }
                outcomes.answered.add(1, ordering: .relaxed)
            }
            let held1 = try await Waiting.until(seconds: 5, every: .zero) { journal.started == 1 }
            #expect(held1)
            for index in 2...5 {
                group.addTask {
                    try await store.transaction {
                        try await $0.put(Self.space, "step\(index)", Self.marker(Double(index)))
                    }
                    outcomes.answered.add(1, ordering: .relaxed)
                }
            }
            // Applied in memory (steps after them may read them) while the first write waits.
            let held2 = try await Waiting.until(seconds: 5, every: .zero) {
                (2...5).allSatisfy { Self.visible(store, "step\($0)") != nil }
            }
            #expect(held2)
            // None is answered before it is durable.
            #expect(journal.written.isEmpty)
            #expect(outcomes.answered.load(ordering: .relaxed) == 0)
            journal.open()
            try await group.waitForAll()
        }
        #expect(journal.written == [1, 4])
        #expect(Self.visible(store, "step5") == Self.marker(5))
    }

    @Test("a failed write undoes every step not yet durable, newest first, and fails each, and a read that saw one")
    func failedWriteUndoes() async throws {
        let journal = GatedJournal()
        journal.open()
        let store = MemoryStore(journal: journal)
        try await store.transaction { transaction in
            try await transaction.put(Self.space, "kept", Self.marker(10))
            try await transaction.put(Self.space, "deleted later", Self.marker(11))
        }
        journal.close()
        let outcomes = Outcomes()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let outcome = await Self.outcome(store) { try await $0.put(Self.space, "new", Self.marker(1)) }
                outcomes.steps.withLock { $0["writer"] = outcome }
            }
            let held3 = try await Waiting.until(seconds: 5, every: .zero) { journal.started == 1 }
            #expect(held3)
            // Builds on the writer's entry, replaces one that was durable and deletes another.
            group.addTask {
                let outcome = await Self.outcome(store) { transaction in
                    let new = try await transaction.get(Self.space, "new")
                    try await transaction.put(Self.space, "kept", try #require(new))
                    try await transaction.delete(Self.space, "deleted later")
                }
                outcomes.steps.withLock { $0["dependent"] = outcome }
            }
            let held4 = try await Waiting.until(seconds: 5, every: .zero) {
                Self.visible(store, "deleted later") == nil
            }
            #expect(held4)
            group.addTask {
                let outcome = await Self.outcome(store) { transaction in
                    _ = try await transaction.get(Self.space, "kept")
                    outcomes.read.store(true, ordering: .releasing)
                }
                outcomes.steps.withLock { $0["reader"] = outcome }
            }
            let held5 = try await Waiting.until(seconds: 5, every: .zero) { outcomes.read.load(ordering: .acquiring) }
            #expect(held5)
            journal.open(failing: true)
        }
        let full = "the disk is full"
        #expect(outcomes.steps.withLock { $0 } == ["writer": full, "dependent": full, "reader": full])
        #expect(Self.visible(store, "new") == nil)
        #expect(Self.visible(store, "kept") == Self.marker(10))
        #expect(Self.visible(store, "deleted later") == Self.marker(11))

        // The store goes on: the next step is written and counts.
        journal.open()
        try await store.transaction { try await $0.put(Self.space, "after", Self.marker(2)) }
        #expect(Self.visible(store, "after") == Self.marker(2))
    }

    @Test("an entry deleted and written again lists after the others, in memory and after a reopen of the file")
    func rewrittenEntryOrder() async throws {
        let location = "sqlite:" + TestPaths.temporaryFile("state.sqlite")
        let before = Date(timeIntervalSince1970: 1)
        try await StoreConformanceTests.withStore(location) { store in
            try await store.transaction { transaction in
                try await transaction.put(Self.space, "a", Marker(at: before))
                try await transaction.put(Self.space, "b", Marker(at: before))
            }
            try await store.transaction { transaction in
                try await transaction.delete(Self.space, "a")
                try await transaction.put(Self.space, "a", Marker(at: before))
            }
            let keys = try await store.transaction { try await $0.list(Self.space).map(\.key) }
            #expect(keys == ["b", "a"])
        }
        try await StoreConformanceTests.withStore(location) { store in
            let keys = try await store.transaction { try await $0.list(Self.space).map(\.key) }
            #expect(keys == ["b", "a"])
        }
    }
}
