#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which case a call the backend made at the mock belongs to: every send of a run (a case's, a
/// recheck of the valid credential's, a calibration's) opens a window that the next send closes,
/// and a call belongs to the window its start (wall clock) falls in, whenever it was read. A call
/// in the window of a send that is not a case (a recheck) belongs to no case.
enum ConformanceJournalWindows {
    /// A note with the wall-clock instant its call started at the mock.
    struct Timed {
        var at: Date
        var note: ConformanceReport.JournalNote
    }

    /// For each of `owners` (when a result's credential was sent, `nil` if it was not), the notes
    /// whose instant falls in its window: from that send up to the next of `sends` (every send
    /// since the oldest owner, in order). A note before the first send belongs to none.
    static func attribute(_ notes: [Timed], sends: [Date], owners: [Date?]) -> [[ConformanceReport.JournalNote]] {
        var attributed = Array(repeating: [ConformanceReport.JournalNote](), count: owners.count)
        let ordered = sends.sorted()
        for timed in notes.sorted(by: { $0.at < $1.at }) {
            guard let window = ordered.last(where: { $0 <= timed.at }),
                let owner = owners.firstIndex(where: { $0 == window })
            else { continue }
            attributed[owner].append(timed.note)
        }
        return attributed
    }
}
