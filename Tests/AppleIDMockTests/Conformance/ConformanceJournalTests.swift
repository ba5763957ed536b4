import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// What a conformance run reads of the journal for each case: only what is new, attributed by
/// the time each call started to the case whose window it fell in, and the attacker's routes.
@Suite("Backend conformance: each case's journal")
struct ConformanceJournalTests {
    private static func note(_ endpoint: String) -> ConformanceReport.JournalNote {
        .init(endpoint: endpoint, status: 200, outcome: "ok")
    }

    @Test("a span of time is listed with a few id prefixes that cover it, not the whole journal")
    func spanPrefixes() throws {
        let from = Date(timeIntervalSince1970: 1_790_000_000.123_456)
        for span in [0, 0.000_001, 0.05, 1, 7, 90, 3_600] as [TimeInterval] {
            let prefixes = JournalSpan.prefixes(from: from, to: from.addingTimeInterval(span))
            #expect(!prefixes.isEmpty && prefixes.count <= JournalSpan.maximumPrefixes, "\(span)")
            let recorder = JournalRecorder()
            for instant in [from, from.addingTimeInterval(span / 2), from.addingTimeInterval(span)] {
                let id = recorder.nextId(at: instant)
                #expect(prefixes.contains { id.hasPrefix($0) }, "\(span): \(id) in \(prefixes)")
            }
            // What came a day before is under none of them.
            let old = recorder.nextId(at: from.addingTimeInterval(-86_400))
            #expect(!prefixes.contains { old.hasPrefix($0) }, "\(span)")
        }
        // A second is a handful of prefixes with the last 5 hex digits (about a second each) free.
        let second = JournalSpan.prefixes(from: from, to: from.addingTimeInterval(1))
        #expect(second.allSatisfy { $0.count >= 9 })
    }

    @Test("journal(since:) lists the entries of calls started since then, what the writer still buffers included")
    func journalSince() async throws {
        let services = try await Fixture.services()
        let recorder = services.journal
        let now = Date()
        func record(_ endpoint: String, at wallTime: Date) {
            recorder.record(
                JournalEntry(
                    id: recorder.nextId(at: wallTime), at: Fixture.start, wallTime: wallTime, endpoint: endpoint,
                    outcome: .ok, latencyMilliseconds: 0))
        }
        for index in 0..<200 { record("token", at: now.addingTimeInterval(-3_600 + Double(index))) }
        try await services.state.flushJournal(recorder)
        record("keys", at: now.addingTimeInterval(-0.5))
        record("token", at: now.addingTimeInterval(0.001))
        record("keys", at: now.addingTimeInterval(0.002))
        // Not yet written: the read writes it first.
        #expect(!recorder.isEmpty)
        let since = try await services.state.journal(since: now, recorder: recorder)
        #expect(since.map(\.endpoint) == ["token", "keys"])
        #expect(try await services.state.journal(recorder: recorder).count == 203)
    }

    @Test(
        "a call belongs to the case whose window (its send to the next send) its start falls in, however late it is read"
    )
    func windows() {
        let t0 = Date(timeIntervalSince1970: 1_790_000_000)
        let (a, b, recheck, c) = (t0, t0.addingTimeInterval(1), t0.addingTimeInterval(2), t0.addingTimeInterval(3))
        let notes: [ConformanceJournalWindows.Timed] = [
            .init(at: t0.addingTimeInterval(-1), note: Self.note("before")),
            .init(at: a.addingTimeInterval(0.1), note: Self.note("a-token")),
            // Flushed after b was sent, started while a's window was open: still a's.
            .init(at: b.addingTimeInterval(-0.001), note: Self.note("a-late-keys")),
            .init(at: b, note: Self.note("b-token")),
            // In the recheck's window: no case's.
            .init(at: recheck.addingTimeInterval(0.2), note: Self.note("recheck-token")),
            .init(at: c.addingTimeInterval(5), note: Self.note("c-keys")),
        ]
        let attributed = ConformanceJournalWindows.attribute(
            notes.reversed(), sends: [a, b, recheck, c], owners: [a, nil, b, c])
        #expect(attributed.map { $0.map(\.endpoint) } == [["a-token", "a-late-keys"], [], ["b-token"], ["c-keys"]])
    }

    @Test("the attacker's routes record each fetch (path, time, peer), the newest 1,000 kept")
    func attackerFetches() async throws {
        let fetches = AttackerFetches()
        let start = Date()
        for index in 0..<(AttackerFetches.limit + 5) {
            fetches.record(
                index.isMultiple(of: 2) ? AttackerPath.jwks : AttackerPath.certificate, peer: "10.0.0.\(index % 250)",
                at: start.addingTimeInterval(Double(index)))
        }
        #expect(fetches.count == AttackerFetches.limit)
        #expect(fetches.since(start).first?.at == start.addingTimeInterval(5))
        #expect(fetches.since(start.addingTimeInterval(Double(AttackerFetches.limit + 3))).count == 2)
        let note = ConformanceSession.note(of: try #require(fetches.since(start).last))
        #expect(note.endpoint == AttackerPath.jwks && note.note?.contains("attacker's key list") == true)
        #expect(note.note?.contains("jku") == true && note.note?.contains("(from 10.0.0.") == true)

        let services = try await Fixture.services()
        let before = Date()
        try await Fixture.application(services).test(.router) { client in
            let jwks = try await client.execute(uri: AttackerPath.jwks, method: .get)
            let certificate = try await client.execute(uri: AttackerPath.certificate, method: .get)
            let apple = try await client.execute(uri: "/auth/keys", method: .get)
            #expect([jwks.status, certificate.status, apple.status] == [.ok, .ok, .ok])
        }
        let served = services.conformance.attackerFetches.since(before)
        #expect(served.map(\.path) == [AttackerPath.jwks, AttackerPath.certificate])
    }
}
