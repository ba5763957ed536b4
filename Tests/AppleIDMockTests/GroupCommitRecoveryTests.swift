import Foundation
import Testing

@testable import AppleIDMock

/// Group commit after the unusual: a failed write (the steps after it are not blamed for it), a
/// writer whose task is cancelled (its batch is still written), an entry deleted and written again
/// in one write (the file keeps the order memory has).
@Suite("Group commit recovery")
struct GroupCommitRecoveryTests {
    static let space = Spaces.relayOff

    @Test("after a failed write, reads, resets and sweeps succeed again without a write step first")
    func stepsAfterFailure() async throws {
        let journal = GroupCommitTests.GatedJournal()
        journal.open()
        let store = MemoryStore(journal: journal)
        try await store.transaction { try await $0.put(Self.space, "kept", GroupCommitTests.marker(10)) }
        journal.open(failing: true)
        let lost = await GroupCommitTests.outcome(store) {
            try await $0.put(Self.space, "lost", GroupCommitTests.marker(1))
        }
        #expect(lost == "the disk is full")
        journal.open()

        // What these see is what is durable: nothing they read was undone after they read it.
        let read = await GroupCommitTests.outcome(store) { transaction in
            let kept = try await transaction.get(Self.space, "kept")
            #expect(kept == GroupCommitTests.marker(10))
        }
        #expect(read == "committed")
        #expect(try await store.sweep(expiredBefore: Date()) == 0)
        let reset = await GroupCommitTests.outcome(store) { try await $0.clear([Self.space.name]) }
        #expect(reset == "committed")
        #expect(GroupCommitTests.visible(store, "kept") == nil)
    }

    @Test("a step whose task is cancelled is still written: the writer of a batch writes it whole")
    func cancelledWriter() async throws {
        let path = TestPaths.temporaryFile("state.sqlite")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let opened = try await StoreOpener.open(.sqlite(path: path), logger: TestPostgres.quietLogger)
        let store = try #require(opened.store as? MemoryStore)
        let outcome = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await GroupCommitTests.outcome(store) { transaction in
                try await transaction.put(Self.space, "a", GroupCommitTests.marker(1))
                try await transaction.put(Self.space, "b", GroupCommitTests.marker(2))
                try await transaction.delete(Self.space, "c")
            }
        }.value
        #expect(outcome == "committed")
        // The connection is not left inside a transaction: the next write lands in the file.
        try await store.transaction { try await $0.put(Self.space, "d", GroupCommitTests.marker(4)) }
        await opened.close()

        let reopened = try await StoreOpener.open(.sqlite(path: path), logger: TestPostgres.quietLogger)
        let keys = try await reopened.store.transaction { try await $0.list(Self.space, prefix: "").map(\.key) }
        await reopened.close()
        #expect(keys == ["a", "b", "d"])
    }

    @Test("an entry deleted and written again in one write is listed in the same place after a restart")
    func recreatedKeepsOrder() async throws {
        let path = TestPaths.temporaryFile("state.sqlite")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let opened = try await StoreOpener.open(.sqlite(path: path), logger: TestPostgres.quietLogger)
        try await opened.store.transaction { transaction in
            try await transaction.put(Self.space, "old", GroupCommitTests.marker(1))
            try await transaction.put(Self.space, "other", GroupCommitTests.marker(2))
        }
        try await opened.store.transaction { transaction in
            try await transaction.delete(Self.space, "old")
            try await transaction.put(Self.space, "old", GroupCommitTests.marker(3))
        }
        let before = try await opened.store.transaction { try await $0.list(Self.space, prefix: "").map(\.key) }
        await opened.close()
        #expect(before == ["other", "old"])

        let reopened = try await StoreOpener.open(.sqlite(path: path), logger: TestPostgres.quietLogger)
        let after = try await reopened.store.transaction { try await $0.list(Self.space, prefix: "").map(\.key) }
        await reopened.close()
        #expect(after == before)
    }
}
