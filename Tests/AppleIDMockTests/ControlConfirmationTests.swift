import Foundation
import Logging
import Testing

@testable import AppleIDMock

/// `/auth/*` requests on PostgreSQL answered on the control record a replica last read: no round
/// trip to read it, and a record changed through another replica is caught before anything is kept.
@Suite("PostgreSQL: requests answered on the control record last read")
struct ControlConfirmationTests {
    @Test("no statement to read the record; a step on a record changed elsewhere keeps nothing and says so")
    func changedOnAnotherReplica() async throws {
        guard TestPostgres.isAvailable else { return }
        try await TestPostgres.withReplicaPair { firstStore, secondStore in
            let postgres = try #require(secondStore as? PostgresStore)
            let first = try await Self.state(on: firstStore)
            let second = try await Self.state(on: secondStore)
            let before = try await second.current()

            // Unchanged: answered without a statement, and a step confirms the record.
            let quiet = ControlConfirmation()
            let statements = postgres.sharedStatements
            let active = try await second.current(confirming: quiet)
            #expect(postgres.sharedStatements == statements)
            #expect(quiet.unconfirmed == before.control)
            #expect(active.confirmation === quiet)
            let consent = try await second.withSession(active) { session, _ in
                try await session.consent(userKey: "maria", appGroupId: "example")
            }
            #expect(consent == nil)
            #expect(quiet.unconfirmed == nil)

            // Changed through the other replica: the step refuses before it writes anything.
            _ = try await first.patchSettings(.object(["codeLifetimeSeconds": .number(60)]))
            let stale = ControlConfirmation()
            await #expect(throws: ControlStale.self) {
                let active = try await second.current(confirming: stale)
                try await second.withSession(active) { session, _ in
                    _ = try await session.authorize(
                        userKey: "maria", appGroupId: "example", scopes: [], hidesEmail: false,
                        now: Fixture.start)
                }
            }
            #expect(stale.unconfirmed == before.control)
            #expect(
                try await first.withSession(try await first.current()) { session, _ in
                    try await session.consent(userKey: "maria", appGroupId: "example")
                } == nil)
            // Read again, the record is the one the other replica wrote.
            #expect(try await second.current().world.settings.codeLifetimeSeconds == 60)
        }
    }

    /// The bundled default scenario's state on `store`.
    private static func state(on store: any StateStore) async throws -> MockState {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return try await MockServices.load(
            configuration: Fixture.configuration(), store: store, clock: .fixed(at: Fixture.start), logger: logger
        ).state
    }
}
