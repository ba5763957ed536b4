#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The journal's newest entries, read without listing the whole journal: an entry's id starts with
/// the wall-clock microseconds of its call in hex (`JournalRecorder.nextId`), so the entries of a
/// span of time are those under a few id prefixes.
extension MockState {
    /// The journal's entries whose call started (wall clock) at or after `start`, oldest first by
    /// id; what this replica still buffers is written first. Only the ids of the span from `start`
    /// to now are listed, in at most `JournalSpan.maximumPrefixes` store reads.
    func journal(since start: Date, recorder: JournalRecorder) async throws -> [JournalEntry] {
        try await flushJournal(recorder)
        // A second ahead: a call that started as this read began.
        let prefixes = JournalSpan.prefixes(from: start, to: Date().addingTimeInterval(1))
        var entries: [JournalEntry] = []
        // One step each: a step that lists more than once runs under a store's write lock.
        for prefix in prefixes {
            entries += try await store.transaction { try await $0.list(Spaces.journal, prefix: prefix).map(\.value) }
        }
        return entries.filter { $0.wallTime >= start }.sorted { $0.id < $1.id }
    }
}

/// The id prefixes that hold the journal entries of a span of wall-clock time.
enum JournalSpan {
    /// The most prefixes a span is listed with (each one store read).
    static let maximumPrefixes = 8

    /// Prefixes of ids that together cover every id of a call started from `from` to `to`: aligned
    /// blocks of 16^k microseconds, the smallest k that needs at most `maximumPrefixes` (so at most
    /// about 16 × `maximumPrefixes` / (`maximumPrefixes` - 1) times the span is read). `[""]` (every
    /// id) when the two ends are spelled with different numbers of digits.
    static func prefixes(from: Date, to: Date) -> [String] {
        let low = micros(from)
        let high = max(low, micros(to))
        let digits = timeDigits(low)
        guard timeDigits(high) == digits else { return [""] }
        for level in 0..<digits {
            let shift = UInt64(4 * level)
            let (first, last) = (low >> shift, high >> shift)
            guard last - first < UInt64(maximumPrefixes) else { continue }
            return (first...last).map { hex($0, digits: digits - level) }
        }
        return [""]
    }

    /// The microseconds `JournalRecorder.nextId` spells for `date`.
    static func micros(_ date: Date) -> UInt64 { UInt64(max(0, date.timeIntervalSince1970 * 1_000_000)) }

    /// How many hex digits an id spells `micros` with.
    static func timeDigits(_ micros: UInt64) -> Int { max(14, (64 - micros.leadingZeroBitCount + 3) / 4) }

    /// `value` in `digits` lowercase hex digits.
    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
