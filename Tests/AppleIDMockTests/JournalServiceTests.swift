import Testing

@testable import AppleIDMock

/// When the journal's writer writes: every tick, unless entries come in fast, then less often (a
/// write keeps only the newest `journalLimit`, so the rest need not be written at all).
@Suite("The journal's writer")
struct JournalServiceTests {
    private static let busy = Duration.milliseconds(250)

    @Test("a few entries are written at every tick")
    func fewEntries() {
        #expect(JournalService.writesNow(waiting: 1, sinceWritten: .milliseconds(100), busyInterval: Self.busy))
        #expect(
            JournalService.writesNow(
                waiting: JournalService.busyCount - 1, sinceWritten: .milliseconds(100), busyInterval: Self.busy))
    }

    @Test("many entries wait until the last write is the busy interval old")
    func manyEntries() {
        let many = JournalService.busyCount
        #expect(!JournalService.writesNow(waiting: many, sinceWritten: .milliseconds(100), busyInterval: Self.busy))
        #expect(!JournalService.writesNow(waiting: many * 5, sinceWritten: .milliseconds(200), busyInterval: Self.busy))
        #expect(JournalService.writesNow(waiting: many, sinceWritten: .milliseconds(250), busyInterval: Self.busy))
    }
}
