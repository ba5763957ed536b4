import Foundation
import Logging
import Synchronization
import Testing

@testable import AppleIDMock

/// Idle expiry on a moved wall clock, another replica's namespaces found once the records are a
/// second old, and the locator's relay address and `transfer_sub` indexes.
@Suite("Namespaces: idle expiry and the locator")
struct NamespaceExpiryAndLocatorTests {
    /// A wall clock the test moves.
    final class MovableClock: Sendable {
        private let instant = Mutex(Date(timeIntervalSince1970: 1_800_000_000))

        /// The clock to inject.
        var clock: WallClock { WallClock { self.instant.withLock { $0 } } }

        /// Moves the clock forward by `seconds`.
        func move(by seconds: TimeInterval) {
            instant.withLock { $0 = $0.addingTimeInterval(seconds) }
        }
    }

    /// A memory store that counts the steps and control record reads made on it.
    final class CountingStore: DelegatingStore {
        let inner = MemoryStore()
        private let count = Atomic<Int>(0)

        /// Steps and control reads so far.
        var reads: Int { count.load(ordering: .sequentiallyConsistent) }

        func transaction<Result: Sendable>(_ body: @escaping @Sendable (any StateTransaction) async throws -> Result)
            async throws -> Result
        {
            count.add(1, ordering: .sequentiallyConsistent)
            return try await inner.transaction(body)
        }

        func control(in space: String, ifChangedFrom known: Int64?) async throws -> (
            revision: Int64, value: ControlState?
        ) {
            count.add(1, ordering: .sequentiallyConsistent)
            return try await inner.control(in: space, ifChangedFrom: known)
        }

        var description: String { "counting memory" }
    }

    static func services(
        store: any StateStore = MemoryStore(), clock: MovableClock = MovableClock()
    ) async throws -> MockServices {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return try await MockServices.load(
            configuration: Fixture.configuration(), store: store, clock: .fixed(at: Fixture.start),
            wallClock: clock.clock, logger: logger)
    }

    /// The relay address of the user `sam` in `state`'s world.
    static func relayAddress(in state: MockState) async throws -> String {
        let world = try await state.current().world
        return world.relayEmail(of: try #require(world.users["sam"]), teamId: "DEF123GHIJ")
    }

    // MARK: - Idle expiry

    @Test("idle expiry on a moved wall clock: kept while used, removed once idle past its time")
    func idleExpiryOnAMovedClock() async throws {
        let clock = MovableClock()
        let namespaces = try await Self.services(clock: clock).namespaces
        try await namespaces.put("brief", NamespaceOptions(idleTtlSeconds: 60))
        try await namespaces.put("lasting", NamespaceOptions())
        clock.move(by: 30)
        #expect(try await namespaces.removeIdle().isEmpty)
        clock.move(by: 20)
        _ = try await namespaces.state(for: "brief")  // used at 50 s: idle from 110 s on
        clock.move(by: 50)
        #expect(try await namespaces.removeIdle().isEmpty)
        clock.move(by: 11)
        #expect(try await namespaces.removeIdle() == ["brief"])
        #expect(try await namespaces.records().map(\.name) == ["lasting"])
    }

    @Test("another replica's namespace is found once the records are a second old on the wall clock")
    func recordsRefreshOnTheWallClock() async throws {
        let store = MemoryStore()
        let clock = MovableClock()
        let here = try await Self.services(store: store, clock: clock)
        let there = try await Self.services(store: store, clock: clock)
        try await there.namespaces.put("team-b", NamespaceOptions(clients: ["web.b"]))
        #expect(try await here.namespaces.namespace(claiming: "web.b") == nil)
        clock.move(by: Namespaces.refreshInterval)
        #expect(try await here.namespaces.namespace(claiming: "web.b") == "team-b")
    }

    // MARK: - Locator

    @Test("the locator finds a relay address and a transfer_sub in their namespace among many; none once deleted")
    func locatorFindsAmongMany() async throws {
        let namespaces = try await Self.services().namespaces
        for index in 0..<40 { try await namespaces.put("n\(index)", NamespaceOptions()) }
        try await namespaces.put("shared", NamespaceOptions(identities: .shared))
        let target = try await namespaces.state(for: "n17")
        let address = try await Self.relayAddress(in: target)
        #expect(try await namespaces.state(forRelayAddress: address) === target)
        #expect(try await namespaces.state(forRelayAddress: address.uppercased()) === target)
        // A shared namespace's addresses are the default's.
        let sharedAddress = try await Self.relayAddress(in: try await namespaces.state(for: "shared"))
        #expect(try await namespaces.state(forRelayAddress: sharedAddress) === namespaces.defaultState)

        // The transfer changes the namespace's control record: its world is indexed again on the
        // next miss, without a request in the namespace first.
        let world = try await target.current().world
        let transfer = try await target.startTransfer(appGroupId: "example", toTeam: "XYZ789KLMN")
        let transferSub = IdentifierDerivation.transferSubject(
            userKey: world.identityKey(of: try #require(world.users["sam"])), fromTeam: transfer.fromTeam,
            toTeam: transfer.toTeam)
        #expect(try await namespaces.state(forTransferSub: transferSub) === target)
        #expect(namespaces.locator.name(ofTransferSub: transferSub) == "n17")
        #expect(namespaces.locator.name(ofRelayAddress: address) == "n17")

        #expect(try await namespaces.delete("n17"))
        #expect(namespaces.locator.name(ofRelayAddress: address) == nil)
        #expect(namespaces.locator.name(ofTransferSub: transferSub) == nil)
        #expect(try await namespaces.state(forRelayAddress: address) === namespaces.defaultState)
        #expect(try await namespaces.state(forTransferSub: transferSub) == nil)
    }

    @Test("a relay address of a namespace another replica made is found here after one catch-up")
    func locatorCatchesUpWithAnotherReplica() async throws {
        let store = MemoryStore()
        let here = try await Self.services(store: store)
        let there = try await Self.services(store: store)
        try await there.namespaces.put("team-b", NamespaceOptions())
        let address = try await Self.relayAddress(in: try await there.namespaces.state(for: "team-b"))
        #expect(here.namespaces.locator.name(ofRelayAddress: address) == nil)
        let found = try await here.namespaces.state(forRelayAddress: address)
        #expect(found.scope.name == "team-b")
        #expect(here.namespaces.locator.name(ofRelayAddress: address) == "team-b")
    }

    @Test("a transfer another replica made in a namespace indexed here is found within a second")
    func locatorSeesAnotherReplicasChangeWithinASecond() async throws {
        let store = MemoryStore()
        let clock = MovableClock()
        let here = try await Self.services(store: store, clock: clock)
        let there = try await Self.services(store: store, clock: clock)
        try await there.namespaces.put("team-b", NamespaceOptions())
        let address = try await Self.relayAddress(in: try await there.namespaces.state(for: "team-b"))
        #expect(try await here.namespaces.state(forRelayAddress: address).scope.name == "team-b")
        let remote = try await there.namespaces.state(for: "team-b")
        let world = try await remote.current().world
        let transfer = try await remote.startTransfer(appGroupId: "example", toTeam: "XYZ789KLMN")
        let transferSub = IdentifierDerivation.transferSubject(
            userKey: world.identityKey(of: try #require(world.users["sam"])), fromTeam: transfer.fromTeam,
            toTeam: transfer.toTeam)
        // This replica compared every namespace's control record less than a second ago.
        #expect(try await here.namespaces.state(forTransferSub: transferSub) == nil)
        clock.move(by: Namespaces.refreshInterval)
        #expect(try await here.namespaces.state(forTransferSub: transferSub)?.scope.name == "team-b")
    }

    @Test("a relay address found, or nobody's, reads as many store entries with 40 namespaces as with 1")
    func lookupDoesNotDependOnTheNumberOfNamespaces() async throws {
        /// The store reads of a hit and of a miss, once the index caught up (within the second in
        /// which the records and control records were last read: the wall clock stands still).
        func readsOfLookups(namespaceCount: Int) async throws -> (hit: Int, miss: Int) {
            let store = CountingStore()
            let namespaces = try await Self.services(store: store).namespaces
            for index in 0..<namespaceCount { try await namespaces.put("n\(index)", NamespaceOptions()) }
            let target = try await namespaces.state(for: "n0")
            let address = try await Self.relayAddress(in: target)
            let nobodys = "zzzzzzzzzz@privaterelay.appleid.com"
            #expect(try await namespaces.state(forRelayAddress: address) === target)
            #expect(try await namespaces.state(forRelayAddress: nobodys) === namespaces.defaultState)
            var before = store.reads
            #expect(try await namespaces.state(forRelayAddress: address) === target)
            let hit = store.reads - before
            before = store.reads
            #expect(try await namespaces.state(forRelayAddress: nobodys) === namespaces.defaultState)
            return (hit, store.reads - before)
        }
        let one = try await readsOfLookups(namespaceCount: 1)
        let many = try await readsOfLookups(namespaceCount: 40)
        #expect(one == many)
        #expect(many.hit <= 2 && many.miss <= 1)
    }
}
