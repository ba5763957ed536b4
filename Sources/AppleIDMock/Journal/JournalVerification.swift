#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A verification of the journal (`POST /__admin/journal/verify`): how many entries match, or
/// whether calls came in a given order; when it fails, the entries that came closest (near misses)
/// and the fields in which each differed.
struct JournalVerification: Sendable, Equatable {
    /// What is verified.
    enum Expectation: Sendable, Equatable {
        /// `count` entries match `match`.
        case count(JournalMatch, CountExpectation)
        /// Entries match these, one after the other in time (others may come between).
        case sequence([JournalMatch])
    }

    var expectation: Expectation
    /// Only entries at or after this instant on the mock's clock.
    var since: Date?

    /// The most near misses (and matches) an answer lists.
    static let listed = 5

    /// An entry that came close, and how it differed.
    struct NearMiss: Sendable, Encodable {
        var entry: JournalEntry
        var differences: [JournalMatch.Difference]
    }

    /// What a verification found.
    struct Outcome: Sendable, Encodable {
        /// `verification_failed` when it failed (as the control plane's errors carry a code).
        var error: String?
        var verified: Bool
        /// For people: what was expected and what was found.
        var message: String
        /// The entries that matched (count form).
        var count: Int?
        /// `exactly 1`, `at least 2`, … (count form).
        var expected: String?
        /// The newest matching entries (count form), or the entry found for each step (sequence
        /// form), at most `listed` for a count.
        var matches: [JournalEntry]
        /// The 0-based step that was not found after the ones before it (sequence form).
        var failedStep: Int?
        /// The closest entries that did not match, closest first.
        var nearMisses: [NearMiss]
    }

    /// The error code of a failed verification.
    static let failed = "verification_failed"

    /// Checks `entries` (in any order).
    func check(_ entries: [JournalEntry]) -> Outcome {
        let considered = entries.filter { entry in since.map { entry.at >= $0 } ?? true }
        switch expectation {
        case .count(let match, let count):
            let matching = considered.filter(match.admits).sorted { $0.id > $1.id }
            let holds = count.holds(matching.count)
            // Too few: the entries that came closest say why; too many: the matches do.
            let misses =
                holds || (count.atLeast.map { matching.count >= $0 } ?? true) ? [] : Self.nearMisses(match, considered)
            return Outcome(
                error: holds ? nil : Self.failed, verified: holds,
                message: "expected \(count.description) matching \(count.noun), found \(matching.count)",
                count: matching.count, expected: count.description, matches: Array(matching.prefix(Self.listed)),
                nearMisses: misses)
        case .sequence(let steps):
            let ordered = considered.sorted { $0.id < $1.id }
            var position = ordered.startIndex
            var found: [JournalEntry] = []
            for (index, step) in steps.enumerated() {
                guard let hit = ordered[position...].firstIndex(where: step.admits) else {
                    let after = Array(ordered[position...])
                    return Outcome(
                        error: Self.failed, verified: false,
                        message: index == 0
                            ? "step 0 of the sequence: no matching entry"
                            : "step \(index) of the sequence: no matching entry after step \(index - 1) (entry \(found.last?.id ?? ""))",
                        matches: found, failedStep: index, nearMisses: Self.nearMisses(step, after))
                }
                found.append(ordered[hit])
                position = ordered.index(after: hit)
            }
            return Outcome(
                verified: true, message: "the \(steps.count) steps of the sequence came in order", matches: found,
                nearMisses: [])
        }
    }

    /// The entries of `entries` that differ from `match` in the fewest fields (newest first among
    /// equals), at most `listed`.
    static func nearMisses(_ match: JournalMatch, _ entries: [JournalEntry]) -> [NearMiss] {
        var misses: [NearMiss] = []
        for entry in entries {
            let differences = match.differences(entry)
            if !differences.isEmpty { misses.append(NearMiss(entry: entry, differences: differences)) }
        }
        misses.sort {
            $0.differences.count != $1.differences.count
                ? $0.differences.count < $1.differences.count : $0.entry.id > $1.entry.id
        }
        return Array(misses.prefix(listed))
    }
}
