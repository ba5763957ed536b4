import Testing

@testable import AppleIDMock

/// How a batch of optimistic steps is laid out for PostgreSQL's commit function (`CommitSteps`):
/// rounds, shared checks and the kind of each write, checked without a database.
@Suite("PostgreSQL: a batch of steps as the commit function reads it")
struct CommitStepsTests {
    private static let seen = EntryVersion(seq: 7, rev: 1)

    @Test("a step left out keeps its position's round, so the steps after it keep theirs")
    func leftOutStepKeepsPositions() {
        var batch = CommitSteps()
        let added = [
            batch.append(step(writes: ["x"]), at: 0),
            // Reads what the first step writes: left out (it runs again).
            batch.append(step(reads: ["x"], writes: ["x"]), at: 1),
            batch.append(step(writes: ["y"]), at: 2),
        ]
        #expect(added == [true, false, true])
        #expect(batch.rounds.count == 3)
        // The function finds a write's round at its step's position.
        #expect(batch.writeStep.map { batch.rounds[Int($0)] } == [0, 0])
        #expect(batch.writeKey == ["x", "y"])
    }

    @Test("steps of a round that read one entry at one version share one check")
    func sharedChecks() {
        var batch = CommitSteps()
        for position in 0..<3 {
            let added = batch.append(
                step(reads: ["control", "consent-\(position % 2)"], writes: ["code-\(position)"]), at: Int32(position))
            #expect(added)
        }
        #expect(batch.checkKey == ["control", "consent-0", "consent-1"])
        #expect(batch.readStep == [0, 0, 1, 1, 2, 2])
        #expect(batch.readCheck == [1, 2, 1, 3, 1, 2])
    }

    @Test("a put is sent as new unless the step read the entry as there; a delete as a delete")
    func writeKinds() {
        var batch = CommitSteps()
        var writes = [PostgresBatches.Write]()
        for key in ["read-present", "read-absent", "not-read"] {
            writes.append(PostgresBatches.Write(space: "s", key: key, text: "{}", index: EntryIndex()))
        }
        writes.append(PostgresBatches.Write(space: "s", key: "gone", text: nil, index: EntryIndex()))
        let reads = [
            PostgresBatches.Check(space: "s", key: "read-present", version: Self.seen),
            PostgresBatches.Check(space: "s", key: "read-absent", version: .absent),
        ]
        let added = batch.append(PostgresBatches.Step(reads: reads, writes: writes), at: 0)
        #expect(added)
        #expect(batch.writeKind == [1, 2, 2, 0])
    }

    private func step(reads: [String] = [], writes: [String]) -> PostgresBatches.Step {
        PostgresBatches.Step(
            reads: reads.map { PostgresBatches.Check(space: "s", key: $0, version: Self.seen) },
            writes: writes.map { PostgresBatches.Write(space: "s", key: $0, text: "{}", index: EntryIndex()) })
    }
}
