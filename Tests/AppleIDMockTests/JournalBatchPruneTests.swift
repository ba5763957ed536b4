import Foundation
import Logging
import Testing

@testable import AppleIDMock

/// A journal batch larger than `journalLimit` keeps the newest entries by id (when the call
/// started), whatever order the calls ended in.
@Suite("Journal: the newest calls survive a full batch")
struct JournalBatchPruneTests {
    @Test("a slow call recorded last, but started first, is the one the limit drops")
    func slowCallRecordedLast() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let services = try await MockServices.load(
            configuration: Fixture.configuration(), store: MemoryStore(), clock: .fixed(at: Fixture.start),
            logger: logger)
        _ = try await services.state.patchSettings(.object(["journalLimit": .number(10)]))
        let base = Date()
        let ids = (0..<12).map { services.journal.nextId(at: base.addingTimeInterval(Double($0) / 1_000)) }
        // The call that started first ends last.
        for id in ids.dropFirst() + [ids[0]] {
            services.journal.record(
                JournalEntry(
                    id: id, at: Fixture.start, wallTime: base, endpoint: "keys", outcome: .ok, latencyMilliseconds: 0))
        }
        let listed = try await services.state.journal(JournalQuery(), recorder: services.journal).map(\.id)
        #expect(listed == Array(ids.suffix(10).reversed()))
    }

    @Test("the cut-off id is the limit-th newest, and nothing is cut from a batch within the limit")
    func cutOff() {
        let entries = ["05", "01", "04", "02", "03"].map {
            JournalEntry(
                id: $0, at: Fixture.start, wallTime: Fixture.start, endpoint: "keys", outcome: .ok,
                latencyMilliseconds: 0)
        }
        #expect(MockState.oldestKept(entries, limit: 2) == "04")
        #expect(MockState.oldestKept(entries, limit: 5) == "")
        #expect(MockState.oldestKept(entries, limit: 9) == "")
    }
}
