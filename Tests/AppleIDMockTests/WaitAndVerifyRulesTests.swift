import Foundation
import Synchronization
import Testing

@testable import AppleIDMock

/// The rules of waiting reads and journal verification, without HTTP: the watch that wakes
/// waiting reads, counts and near misses, sequences, the request body's checks, trace context.
@Suite("Waiting reads and verification: rules")
struct WaitAndVerifyRulesTests {
    private func entry(
        _ id: String, endpoint: String = "token", grantType: String? = "authorization_code", clientId: String? = "web",
        user: String? = "sam", outcome: String = "ok", status: Int? = 200
    ) -> JournalEntry {
        JournalEntry(
            id: id, at: Date(timeIntervalSince1970: 1_000), wallTime: Date(), endpoint: endpoint, method: "POST",
            grantType: grantType, clientId: clientId, userKey: user, status: status,
            outcome: JournalOutcome(word: outcome), latencyMilliseconds: 1)
    }

    /// A step that wrote `values` to `space` of `namespace` (`nil`: the default namespace's).
    private func wrote(_ values: [any Sendable], to space: String, in namespace: String? = nil) -> StoreChanges {
        var changes = StoreChanges()
        for (index, value) in values.enumerated() {
            let ref = EntryRef(space: StoredSpaceName(space, in: namespace).description, key: "k\(index)")
            changes.writes[ref] = MemoryEntry(value: value, index: EntryIndex(), seq: Int64(index))
        }
        return changes
    }

    @Test("a wait ends when its topic changes, not when another does; at the deadline otherwise")
    func wakes() async throws {
        let watch = StoreWatch()
        #expect(watch.admit() == nil)
        defer { watch.release() }
        let subscription = watch.subscribe(.init(.journal))
        async let waited: Void = watch.next(subscription, until: .now + .seconds(600))
        #expect(try await Waiting.until(seconds: 600, every: .zero) { watch.waiting(.journal) == 1 })
        // Another topic's change leaves the journal's waiter waiting.
        watch.changed([.mail, .outbox])
        #expect(watch.waiting(.journal) == 1)
        watch.changed([.journal])
        #expect(watch.waiting(.journal) == 0)
        await waited
        // A change while the reader was not asleep (it was reading) is kept for its next wait.
        watch.changed([.journal])
        await watch.next(subscription, until: .now + .seconds(600))
        watch.unsubscribe(subscription)
        let quiet = ContinuousClock.now
        let idle = watch.subscribe(.init(.outbox))
        await watch.next(idle, until: .now + .milliseconds(100))
        #expect(ContinuousClock.now - quiet >= .milliseconds(100))
        watch.unsubscribe(idle)
    }

    @Test("a committed step wakes only the readers it concerns: their namespace, and what their filter accepts")
    func wakesOnlyWhomItConcerns() async throws {
        let watch = StoreWatch()
        #expect(watch.admit() == nil)
        defer { watch.release() }
        let sams = {
            var query = JournalQuery()
            query.user = "sam"
            return query
        }()
        let inDefault = watch.subscribe(.init(.journal, accepts: { ($0 as? JournalEntry).map(sams.admits) ?? false }))
        let inTeam = watch.subscribe(.init(.journal, in: "team-a"))
        let everywhere = watch.subscribe(
            .init(.journal, everyNamespace: true, accepts: { ($0 as? JournalEntry).map(sams.admits) ?? false }))
        async let a: Void = watch.next(inDefault, until: .now + .seconds(600))
        async let b: Void = watch.next(inTeam, until: .now + .seconds(600))
        async let c: Void = watch.next(everywhere, until: .now + .seconds(600))
        #expect(try await Waiting.until(seconds: 600, every: .zero) { watch.waiting(.journal) == 3 })
        // Another namespace's entries, and entries the filter refuses, wake nobody who does not care.
        watch.committed(wrote([entry("1", user: "maria")], to: Spaces.journal.name, in: "team-b"))
        watch.committed(wrote([entry("2", user: "maria")], to: Spaces.journal.name))
        #expect(watch.waiting(.journal) == 3)
        // team-a's entry wakes team-a's reader (no filter), no one else.
        watch.committed(wrote([entry("3", user: "maria")], to: Spaces.journal.name, in: "team-a"))
        await b
        #expect(watch.waiting(.journal) == 2)
        // Sam's entry in default wakes default's reader and the one of every namespace.
        watch.committed(wrote([entry("4", user: "maria"), entry("5", user: "sam")], to: Spaces.journal.name))
        await a
        await c
        #expect(watch.waiting(.journal) == 0)
        for subscription in [inDefault, inTeam, everywhere] { watch.unsubscribe(subscription) }
    }

    @Test("a reader short of its count by 3 sleeps through entries until 3 it accepts were written")
    func wakesOnceSatisfiable() async throws {
        let watch = StoreWatch()
        #expect(watch.admit() == nil)
        defer { watch.release() }
        let subscription = watch.subscribe(.init(.journal, accepts: { ($0 as? JournalEntry)?.userKey == "sam" }))
        async let waited: Void = watch.next(subscription, needing: 3, until: .now + .seconds(600))
        #expect(try await Waiting.until(seconds: 600, every: .zero) { watch.waiting(.journal) == 1 })
        watch.committed(wrote([entry("1"), entry("2", user: "maria")], to: Spaces.journal.name))
        watch.committed(wrote([entry("3")], to: Spaces.journal.name))
        #expect(watch.waiting(.journal) == 1, "two of three: still asleep")
        watch.committed(wrote([entry("4", user: "maria"), entry("5")], to: Spaces.journal.name))
        await waited
        #expect(watch.waiting(.journal) == 0)
        // Counting starts afresh: what comes while it reads counts toward its next wait.
        watch.committed(wrote([entry("6")], to: Spaces.journal.name))
        await watch.next(subscription, needing: 1, until: .now + .seconds(600))
        watch.unsubscribe(subscription)
    }

    @Test("a reader keyed by a user is asked only about the entries that carry it")
    func keyedReadersAreAskedLittle() async throws {
        let watch = StoreWatch()
        #expect(watch.admit() == nil)
        defer { watch.release() }
        let asked = Counter()
        let subscription = watch.subscribe(
            .init(
                .journal,
                accepts: {
                    asked.value += 1
                    return ($0 as? JournalEntry)?.userKey == "sam"
                }, key: "sam"))
        async let waited: Void = watch.next(subscription, until: .now + .seconds(600))
        #expect(try await Waiting.until(seconds: 600, every: .zero) { watch.waiting(.journal) == 1 })
        watch.committed(wrote((0..<100).map { entry("m\($0)", user: "maria") }, to: Spaces.journal.name))
        #expect(asked.value == 0 && watch.waiting(.journal) == 1)
        watch.committed(wrote([entry("s", user: "sam")], to: Spaces.journal.name))
        await waited
        #expect(asked.value == 1)
        watch.unsubscribe(subscription)
    }

    @Test("each space wakes what the registry says: refused mail wakes the mailbox's readers, in any namespace")
    func spacesSayWhatTheyWake() async throws {
        for topic in StoreWatch.Topic.allCases {
            for space in topic.spaces {
                #expect(StoreWatch.Topic.of(space: space) == topic)
                #expect(StoreWatch.Topic.of(space: NamespaceScope(name: "team-a").storedName(space)) == topic)
            }
        }
        #expect(StoreWatch.Topic.mail.spaces.contains(Spaces.mailRefused.name))
        #expect(StoreWatch.Topic.of(space: Spaces.consents.name) == nil)
        let watch = StoreWatch()
        #expect(watch.admit() == nil)
        let mail = watch.subscribe(.init(.mail, in: "team-a"))
        var changes = StoreChanges()
        changes.cleared = ["team-a/" + Spaces.mailRefused.name]
        watch.committed(changes)
        // The change came before the wait: the wait returns at once.
        await watch.next(mail, until: .now + .seconds(600))
        watch.unsubscribe(mail)
        watch.release()
    }

    @Test("a committed step wakes the topics of the spaces it wrote, and only while someone waits")
    func committedSteps() async throws {
        let watch = StoreWatch()
        let outbox = watch.subscribe(.init(.outbox))
        let journal = watch.subscribe(.init(.journal))
        var changes = StoreChanges()
        changes.cleared = [Spaces.outbox.name]
        // Nobody admitted: the step costs one atomic load and marks nobody.
        watch.committed(changes)
        #expect(watch.admit() == nil)
        async let waited: Void = watch.next(outbox, until: .now + .seconds(600))
        async let other: Void = watch.next(journal, until: .now + .seconds(600))
        #expect(try await Waiting.until(seconds: 600, every: .zero) { watch.waiting(.outbox) == 1 })
        #expect(try await Waiting.until(seconds: 600, every: .zero) { watch.waiting(.journal) == 1 })
        watch.committed(changes)
        await waited
        #expect(watch.waiting(.journal) == 1)
        watch.unsubscribe(journal)
        await other
        watch.unsubscribe(outbox)
        watch.release()
    }

    @Test("readers are bounded; shutdown ends every wait and refuses new readers")
    func boundedAndClosed() async throws {
        let watch = StoreWatch(limit: 2)
        #expect(watch.admit() == nil && watch.admit() == nil)
        #expect(watch.admit() != nil)
        watch.release()
        let mail = watch.subscribe(.init(.mail))
        async let waited: Void = watch.next(mail, until: .now + .seconds(600))
        #expect(try await Waiting.until(seconds: 600, every: .zero) { watch.waiting(.mail) == 1 })
        watch.close()
        await waited
        #expect(watch.waiting(.mail) == 0)
        #expect(watch.admit() != nil)
    }

    @Test("readers are shared fairly: one namespace holds at most a quarter, and the others leave default a quarter")
    func fairShares() {
        let watch = StoreWatch(limit: 8)
        #expect(watch.namespaceShare == 2 && watch.defaultReserve == 2)
        #expect(watch.admit(for: "a") == nil && watch.admit(for: "a") == nil)
        #expect(watch.admit(for: "a") == .namespaceShare)
        #expect(watch.admit(for: "b") == nil && watch.admit(for: "b") == nil)
        #expect(watch.admit(for: "c") == nil && watch.admit(for: "c") == nil)
        // Six of eight held by other namespaces: the last two are default's.
        #expect(watch.admit(for: "d") == .othersFull)
        #expect(watch.admit() == nil && watch.admit() == nil)
        #expect(watch.admit() == .full && watch.readers == 8)
        watch.release(for: "a")
        #expect(watch.admit(for: "a") == nil, "a's slot back, within its share and the others' part")
        watch.release()
        #expect(watch.admit(for: "d") == .othersFull, "a slot of default's reserve stays default's")
        #expect(watch.admit() == nil)
        watch.close()
        #expect(watch.admit(for: "e") == .closed)
    }

    @Test("a waiting read returns as soon as it is satisfied, and says so; otherwise at the deadline")
    func waitingRead() async throws {
        let watch = StoreWatch()
        let count = Counter()
        let patient = WaitingRead(seconds: 30)
        let started = ContinuousClock.now
        async let result = patient.run(
            .journal, watch: watch, in: .default, read: { count.value }, satisfied: { $0 >= 2 })
        // Asleep after its first read: only the change can end the wait before its deadline.
        #expect(try await Waiting.until(seconds: 10, every: .zero) { watch.waiting(.journal) == 1 })
        count.value = 2
        watch.changed([.journal])
        let (value, satisfied) = try await result
        let took = ContinuousClock.now - started
        #expect(value == 2 && satisfied)
        #expect(took < .seconds(10), "answered after \(took): at its deadline, not woken by the change")
        let brief = WaitingRead(seconds: 0.1)
        let (_, reached) = try await brief.run(
            .journal, watch: watch, in: .default, read: { 0 }, satisfied: { $0 >= 1 })
        #expect(!reached)
        #expect(watch.readers == 0)
    }

    /// A value the test changes while a read waits.
    final class Counter: Sendable {
        private let stored = Mutex(0)
        var value: Int {
            get { stored.withLock { $0 } }
            set { stored.withLock { $0 = newValue } }
        }
    }

    @Test("count: exactly, at least, at most; too few lists the near misses closest first")
    func counts() {
        let entries = [
            entry("01", grantType: "refresh_token"),
            entry("02", grantType: "refresh_token", clientId: "app"),
            entry("03", endpoint: "revoke", grantType: nil, outcome: "invalid_client", status: 400),
        ]
        var match = JournalMatch()
        match.expected = [(.endpoint, "token"), (.grantType, "authorization_code"), (.clientId, "web")]
        let none = JournalVerification(expectation: .count(match, .exactly(1))).check(entries)
        #expect(!none.verified && none.count == 0 && none.error == "verification_failed")
        #expect(none.message == "expected exactly 1 matching entry, found 0")
        // Fewest differing fields first; among equals, the newest.
        #expect(none.nearMisses.map(\.entry.id) == ["01", "03", "02"])
        #expect(
            none.nearMisses[0].differences == [
                .init(field: .grantType, expected: "authorization_code", actual: "refresh_token")
            ])
        #expect(none.nearMisses[2].differences.map(\.field) == [.grantType, .clientId])
        match.expected = [(.grantType, "refresh_token")]
        #expect(JournalVerification(expectation: .count(match, CountExpectation(atLeast: 2))).check(entries).verified)
        let tooMany = JournalVerification(expectation: .count(match, CountExpectation(atMost: 1))).check(entries)
        #expect(!tooMany.verified && tooMany.count == 2 && tooMany.nearMisses.isEmpty)
        #expect(tooMany.matches.map(\.id) == ["02", "01"])
        match.expected = [(.outcome, "error"), (.status, "400"), (.method, "post")]
        #expect(JournalVerification(expectation: .count(match, .exactly(1))).check(entries).verified)
    }

    @Test("sequence: in order holds, out of order names the step and its near misses after the step before")
    func sequence() {
        let entries = [
            entry("01"), entry("02", endpoint: "revoke", grantType: nil), entry("03", grantType: "refresh_token"),
        ]
        var exchange = JournalMatch()
        exchange.expected = [(.grantType, "authorization_code")]
        var revoke = JournalMatch()
        revoke.expected = [(.endpoint, "revoke")]
        var refresh = JournalMatch()
        refresh.expected = [(.grantType, "refresh_token")]
        let held = JournalVerification(expectation: .sequence([exchange, revoke, refresh])).check(entries)
        #expect(held.verified && held.matches.map(\.id) == ["01", "02", "03"])
        let failed = JournalVerification(expectation: .sequence([exchange, refresh, revoke])).check(entries)
        #expect(!failed.verified && failed.failedStep == 2)
        #expect(failed.matches.map(\.id) == ["01", "03"])
        #expect(failed.nearMisses.isEmpty)
        let first = JournalVerification(expectation: .sequence([revoke, exchange])).check(entries)
        #expect(first.failedStep == 1 && first.nearMisses.map(\.entry.id) == ["03"])
    }

    @Test("the body: unknown match fields, an inverted count, waitSeconds out of range are named")
    func badBodies() throws {
        func problems(_ json: String) -> [String] {
            do {
                _ = try VerificationRequest.read(try JSONValue.parse(Data(json.utf8)))
                return []
            } catch let ControlRefusal.invalid(problems, _) {
                return problems.map { "\($0.path): \($0.reason)" }
            } catch {
                return ["\(error)"]
            }
        }
        #expect(
            problems(#"{"match":{"endpoint":"token","colour":"red"}}"#).contains {
                $0.hasPrefix("$.match.colour: unknown field")
            })
        #expect(
            problems(#"{"match":{"endpoint":"token"},"count":{"atLeast":3,"atMost":1}}"#) == [
                "$.count: inverted: atLeast (3) is more than atMost (1)"
            ])
        #expect(
            problems(#"{"match":{"endpoint":"token"},"waitSeconds":61}"#) == [
                "$.waitSeconds: expected a number of seconds in 0...60"
            ])
        #expect(
            problems(#"{"match":{"endpoint":"token"},"count":{"exactly":1,"atMost":2}}"#) == [
                "$.count.exactly: not with atLeast or atMost"
            ])
        #expect(problems(#"{"match":{}}"#) == ["$.match: name at least one field to match"])
        #expect(problems(#"{"sequence":[{"endpoint":"token"}],"count":{"exactly":1}}"#).count == 1)
        let read = try VerificationRequest.read(
            try JSONValue.parse(Data(#"{"match":{"status":400},"count":{"atMost":0},"waitSeconds":2.5}"#.utf8)))
        #expect(read.wait.seconds == 2.5)
        #expect(
            read.verification.expectation
                == .count(JournalMatch(expected: [(.status, "400")]), CountExpectation(atMost: 0)))
    }

    @Test("traceparent: well-formed ones are kept, others are not; made ones are well formed")
    func traceContext() {
        let good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        #expect(TraceContext.valid(good) == good)
        #expect(TraceContext.traceId(of: good) == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(TraceContext.valid("00-00000000000000000000000000000000-00f067aa0ba902b7-01") == nil)
        #expect(TraceContext.valid("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01") == nil)
        #expect(TraceContext.valid(good + "-extra") == nil)
        #expect(TraceContext.valid("ff" + good.dropFirst(2)) == nil)
        #expect(TraceContext.valid("01" + good.dropFirst(2) + "-future") != nil)
        let made = TraceContext.make()
        #expect(TraceContext.valid(made) == made && made != TraceContext.make())
    }
}

/// `waitSeconds` and `minCount` in a query string: plain decimal numbers only.
@Suite("Waiting reads: the query's numbers")
struct WaitingReadNumberTests {
    @Test("0x10, +1, 1e-400, 03, 1., .5 and -0 are refused naming the field; 0, 5, 2.5 and 60 are read")
    func plainDecimals() {
        for bad in ["0x10", "+1", "1e-400", "03", "1.", ".5", "-0", " 1", "1 ", "inf", "nan", "61", ""] {
            var reader = JSONReader()
            var wait = WaitingRead()
            _ = wait.read("waitSeconds", bad, into: &reader)
            #expect(reader.problems.map(\.path.description) == ["?waitSeconds"], "\(bad)")
        }
        for bad in ["0x10", "+1", "1e3", "03", "1.5", "-1", "", " 1", "0"] {
            var reader = JSONReader()
            var wait = WaitingRead()
            _ = wait.read("minCount", bad, into: &reader)
            #expect(reader.problems.map(\.path.description) == ["?minCount"], "\(bad)")
        }
        for good in ["0", "5", "2.5", "60", "0.25"] {
            var reader = JSONReader()
            var wait = WaitingRead()
            _ = wait.read("waitSeconds", good, into: &reader)
            #expect(reader.problems.isEmpty && wait.seconds == Double(good), "\(good)")
        }
        var reader = JSONReader()
        var wait = WaitingRead()
        _ = wait.read("minCount", "12", into: &reader)
        #expect(reader.problems.isEmpty && wait.minCount == 12)
    }
}
