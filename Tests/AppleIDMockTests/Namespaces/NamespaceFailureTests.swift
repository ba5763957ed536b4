import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import AppleIDMock

/// Namespaces where they meet failures and races: a journal flush that fails, a store outage while
/// choosing, the relay's copy after a delete, a records read overtaken by a make; and a
/// namespace's settings naming a bundled key. Each test fails without the fix it came with.
@Suite("Namespaces: failures, races and key names")
struct NamespaceFailureTests {
    /// A memory store whose transactions fail while `failing` is set.
    final class FailingStore: DelegatingStore {
        let inner = MemoryStore()
        private let flag = Atomic<Bool>(false)

        /// Whether transactions fail now.
        var failing: Bool {
            get { flag.load(ordering: .sequentiallyConsistent) }
            set { flag.store(newValue, ordering: .sequentiallyConsistent) }
        }

        func transaction<Result: Sendable>(_ body: @escaping @Sendable (any StateTransaction) async throws -> Result)
            async throws -> Result
        {
            if failing { throw StoreUnavailable(cause: "the test's outage") }
            return try await inner.transaction(body)
        }

        var description: String { "failing memory" }
    }

    @Test("a journal flush of two namespaces' entries that fails puts each entry back once (an outage lost entries)")
    func failedFlushOfSeveralNamespacesKeepsEachEntryOnce() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let store = FailingStore()
        let services = try await MockServices.load(
            configuration: Fixture.configuration(), store: store, clock: .fixed(at: Fixture.start), logger: logger)
        try await services.namespaces.put("team-a", NamespaceOptions())
        let team = try await services.namespaces.state(for: "team-a")
        for namespace in [NamespaceName.default, "team-a"] {
            services.journal.record(
                JournalEntry(
                    id: services.journal.nextId(at: Date()), at: Fixture.start, wallTime: Date(), namespace: namespace,
                    endpoint: "keys", outcome: .ok, latencyMilliseconds: 0))
        }
        // A store outage of a second or two: the flush (every 100 ms) fails again and again. Each
        // failure put the first namespace's entries back twice, doubling them until the full buffer
        // dropped the oldest: the other namespace's entry.
        store.failing = true
        for _ in 0..<16 {
            await #expect(throws: StoreUnavailable.self) { try await services.state.flushJournal(services.journal) }
        }
        store.failing = false
        let home = try await services.state.journal(recorder: services.journal)
        let own = try await team.journal(recorder: services.journal)
        #expect(home.count == 1)
        #expect(own.count == 1)
    }

    @Test("a namespace's settings name a bundled key by the kid its key listing shows")
    func settingsNameANamespacesBundledKid() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            #expect(try await client.postJSON("/__admin/namespaces/team-a", "{}", method: .put).status == .created)
            func keys() async throws -> [[String: Any]] {
                try #require(
                    try await client.execute(uri: "/ns/team-a/__admin/keys", method: .get).json["keys"]
                        as? [[String: Any]])
            }
            let other = try #require(try await keys().first { $0["signing"] as? Bool == false }?["kid"] as? String)
            let patched = try await client.postJSON(
                "/ns/team-a/__admin/settings", #"{"signingKeyId":"\#(other)"}"#, method: .patch)
            #expect(patched.status == .ok)
            #expect(try await keys().filter { $0["signing"] as? Bool == true }.map { $0["kid"] as? String } == [other])
            // The default namespace's own kids are not the namespace's.
            let home = try #require(
                try await client.execute(uri: "/__admin/keys", method: .get).json["keys"] as? [[String: Any]])
            #expect(!home.contains { $0["kid"] as? String == other })
        }
    }

    @Test("a store outage while choosing the namespace is answered 503 in each surface's format, not a bare 500")
    func outageWhileChoosingIsTheSurfacesAnswer() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let store = FailingStore()
        let wallClock = NamespaceExpiryAndLocatorTests.MovableClock()
        let services = try await MockServices.load(
            configuration: Fixture.configuration(), store: store, clock: .fixed(at: Fixture.start),
            wallClock: wallClock.clock, logger: logger)
        let app = Application(
            responder: NamespacePrefixResponder(router: buildRouter(services: services).buildResponder()))
        try await app.test(.router) { client in
            // A claimed client_id is looked up in records read at most a second ago: let them age.
            wallClock.move(by: Namespaces.refreshInterval * 1.2)
            store.failing = true
            let authorize = try await client.execute(
                uri: "/auth/authorize?client_id=\(Fixture.webClient)", method: .get)
            #expect(authorize.status == .serviceUnavailable)
            #expect(authorize.json["error"] as? String == "temporarily_unavailable")
            // A namespace named on the control plane that this process has not read yet.
            let admin = try await client.execute(uri: "/ns/team-b/__admin/settings", method: .get)
            #expect(admin.status == .serviceUnavailable)
            #expect(admin.json["error"] as? String == "store_unavailable")
        }
    }

    @Test("the relay's copy to --smtp-forward, done after its namespace was deleted, does not make it again")
    func forwardAfterDeletionLeavesTheNamespaceDeleted() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        var configuration = Fixture.configuration()
        // Nothing listens there: the copy fails at once, and its outcome is noted on the record.
        configuration.mail.forward = SMTPAddress(host: "127.0.0.1", port: 19_401)
        let services = try await MockServices.load(
            configuration: configuration, store: MemoryStore(), clock: .fixed(at: Fixture.start), logger: logger)
        try await services.namespaces.put("team-a", NamespaceOptions())
        let team = try await services.namespaces.state(for: "team-a")
        let active = try await team.current()
        try await team.withSession(active) { session, _ in
            _ = try await session.authorize(
                userKey: "sam", appGroupId: "example", scopes: ["name", "email"], hidesEmail: true,
                now: Fixture.start)
        }
        let relay = active.world.relayEmail(of: try #require(active.world.users["sam"]), teamId: "DEF123GHIJ")
        let desk = MailDesk(services: services)
        let (reply, forward) = await desk.deliver(MailDeskTests.envelope("news@example.com", to: relay))
        #expect(reply.code == 250)
        // The test's teardown deletes the namespace while the copy is on its way.
        #expect(try await services.namespaces.delete("team-a"))
        await forward()
        #expect(try await services.namespaces.record("team-a") == nil)
    }

    /// A memory store whose next transaction, once armed, holds its result until opened.
    final class HeldStore: DelegatingStore {
        let inner = MemoryStore()
        private let gate = Mutex((armed: false, holding: false))
        private let opened: AsyncStream<Void>
        private let opener: AsyncStream<Void>.Continuation

        init() { (opened, opener) = AsyncStream.makeStream(of: Void.self) }

        /// The next transaction holds its result at the gate.
        func arm() { gate.withLock { $0.armed = true } }

        /// Whether a transaction holds at the gate.
        var isHolding: Bool { gate.withLock { $0.holding } }

        /// Lets the held transaction return.
        func open() { opener.yield() }

        func transaction<Result: Sendable>(_ body: @escaping @Sendable (any StateTransaction) async throws -> Result)
            async throws -> Result
        {
            let held = gate.withLock { gate in
                defer { gate.armed = false }
                gate.holding = gate.armed
                return gate.armed
            }
            let result = try await inner.transaction(body)
            if held {
                for await _ in opened { break }
                gate.withLock { $0.holding = false }
            }
            return result
        }

        var description: String { "held memory" }
    }

    @Test("a records read that began before a namespace was made does not make this process forget it")
    func refreshOverlappingAPutKeepsTheNewNamespace() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let store = HeldStore()
        let services = try await MockServices.load(
            configuration: Fixture.configuration(), store: store, clock: .fixed(at: Fixture.start), logger: logger)
        let namespaces = services.namespaces
        store.arm()
        try await withThrowingTaskGroup(of: Void.self) { group in
            // The housekeeping's read of the records (every second), before team-a exists.
            group.addTask { try await namespaces.refresh() }
            let holding = try await Waiting.until(seconds: 5, every: .milliseconds(1)) { store.isHolding }
            #expect(holding)
            try await namespaces.put("team-a", NamespaceOptions())
            store.open()
            try await group.waitForAll()
        }
        // Forgotten, team-a's codes and tokens were the default namespace's (a tag nobody has):
        // served in its world on Apple's plain URLs, and deleted by its reset.
        let tag = NamespaceScope(name: "team-a").tag
        #expect(services.state.directory.name(ofTag: tag) == "team-a")
        #expect(try await namespaces.state(forTag: tag)?.scope.name == "team-a")
    }
}
