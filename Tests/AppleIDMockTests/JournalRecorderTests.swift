import Foundation
import Synchronization
import Testing

@testable import AppleIDMock

/// The journal's buffer between requests and the store: ids, order, bounds, and requests on
/// several threads at once.
@Suite("Journal recorder")
struct JournalRecorderTests {
    private static func entry(_ id: String) -> JournalEntry {
        JournalEntry(
            id: id, at: Date(timeIntervalSince1970: 0), wallTime: Date(timeIntervalSince1970: 0), endpoint: "keys",
            outcome: .ok, latencyMilliseconds: 0)
    }

    @Test("ids: 14 hex digits of microseconds (more when the time needs them), the replica, 4 hex digits of a counter")
    func idShape() {
        let replica = Array("abc12".utf8)
        #expect(JournalRecorder.id(micros: 0x1234, replica: replica, counter: 7) == "00000000001234-abc12-0007")
        #expect(JournalRecorder.id(micros: 0, replica: replica, counter: 0xFFFF) == "00000000000000-abc12-ffff")
        #expect(
            JournalRecorder.id(micros: 0x1_2345_6789_abcd_ef, replica: replica, counter: 0x10)
                == "123456789abcdef-abc12-0010")
        #expect(JournalRecorder.id(micros: .max, replica: [], counter: 1) == "ffffffffffffffff--0001")
    }

    @Test("ids sort by wall-clock time, and within one microsecond by the order they were taken")
    func idOrder() {
        let recorder = JournalRecorder()
        let instant = Date(timeIntervalSince1970: 1_790_000_000.123456)
        let ids = [
            recorder.nextId(at: instant), recorder.nextId(at: instant),
            recorder.nextId(at: instant.addingTimeInterval(0.000_002)),
            recorder.nextId(at: instant.addingTimeInterval(60)),
        ]
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
        let parts = ids[0].split(separator: "-")
        #expect(parts.count == 3)
        #expect(parts[0] == String(UInt64(instant.timeIntervalSince1970 * 1_000_000), radix: 16).leftPadded(to: 14))
    }

    @Test("drain hands over every entry in order and leaves the buffer empty; restore puts a batch back first")
    func drainAndRestore() {
        let recorder = JournalRecorder()
        for index in 0..<5 { recorder.record(Self.entry("e\(index)")) }
        #expect(!recorder.isEmpty)
        let (entries, dropped) = recorder.drain()
        #expect(entries.map(\.id) == ["e0", "e1", "e2", "e3", "e4"])
        #expect(dropped == 0)
        #expect(recorder.isEmpty)
        recorder.record(Self.entry("e5"))
        recorder.restore(entries)
        #expect(recorder.drain().entries.map(\.id) == ["e0", "e1", "e2", "e3", "e4", "e5"])
    }

    @Test("past the buffer's limit the oldest entries are dropped and counted")
    func bound() {
        let recorder = JournalRecorder()
        for index in 0..<(JournalRecorder.bufferLimit + 3) { recorder.record(Self.entry("e\(index)")) }
        let (entries, dropped) = recorder.drain()
        #expect(entries.count == JournalRecorder.bufferLimit)
        #expect(entries.first?.id == "e3")
        #expect(dropped == 3)
        #expect(recorder.drain().dropped == 0)
    }

    @Test("requests on many threads at once: every id distinct, every entry kept")
    func concurrent() async {
        let recorder = JournalRecorder()
        let now = Date()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<500 { recorder.record(Self.entry(recorder.nextId(at: now))) }
                }
            }
        }
        let entries = recorder.drain().entries
        #expect(entries.count == 4_000)
        #expect(Set(entries.map(\.id)).count == 4_000)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
