import Foundation
import Testing

@testable import AppleIDMock

/// The mailbox on every store: records and raw messages (any bytes) round-trip, the newest are
/// kept, the day's counts are swept once the day is over, and a relay address's facts are read
/// the same way from consents, relay switches and deleted accounts.
@Suite("Mailbox store conformance")
struct MailStoreConformanceTests {
    let now = Fixture.start

    func record(_ id: String) -> MailRecord {
        MailRecord(
            id: id, at: now, wallTime: now, direction: .inbound, outcome: .relayed, reason: "é ✓",
            smtpReply: "250 2.0.0 Ok", envelopeSender: "news@example.com", recipient: "x@privaterelay.appleid.com",
            userKey: "sam", teamId: "DEF123GHIJ", deliveredTo: "sam.lee@example.org", from: "News <news@example.com>",
            subject: "Grüße", size: 4, overTLS: true, hasRaw: true, forward: "ok")
    }

    @Test("records and raw bytes round-trip; the newest are kept", arguments: TestPostgres.storeKinds)
    func roundTrip(kind: StoreKind) async throws {
        try await kind.withFreshStore { store in
            let bytes = Data([0, 13, 10, 0xFF, 0x80, 46, 13, 10])
            for index in 0..<12 {
                try await store.transaction { transaction in
                    let id = String(format: "%04d", index)
                    try await transaction.put(Spaces.mail, id, record(id))
                    try await transaction.prune(Spaces.mail, keep: 10)
                    try await transaction.put(Spaces.mailRaw, id, MailMessage(data: bytes))
                    try await transaction.prune(Spaces.mailRaw, keep: 5)
                }
            }
            let (records, raws, raw) = try await store.transaction { transaction in
                (
                    try await transaction.list(Spaces.mail).map(\.value),
                    try await transaction.list(Spaces.mailRaw).map(\.key),
                    try await transaction.get(Spaces.mailRaw, "0011")
                )
            }
            #expect(records.map(\.id) == (2..<12).map { String(format: "%04d", $0) })
            #expect(records.last == record("0011"))
            #expect(raws == (7..<12).map { String(format: "%04d", $0) })
            #expect(raw?.data == bytes)
            try await store.transaction { try await $0.clear(Spaces.mailSpaces.map(\.name)) }
            #expect(try await store.transaction { try await $0.list(Spaces.mail).count } == 0)
        }
    }

    @Test(
        "refusals, messages kept once, their recipes and the usage round-trip", arguments: TestPostgres.storeKinds)
    func keptOnce(kind: StoreKind) async throws {
        try await kind.withFreshStore { store in
            var refusedRecord = record("r1")
            refusedRecord.outcome = .unauthorizedSender
            let refused = refusedRecord
            let recipe = MailMessage(data: Data("Top: 1\r\n".utf8), body: "b1", replacing: 0..<3, with: Array("X".utf8))
            let usage = MailboxUsage(kept: [MailboxUsage.Kept(id: "b1", bytes: 9)], droppedMessages: 2)
            try await store.transaction { transaction in
                try await transaction.put(Spaces.mailRefused, "r1", refused)
                try await transaction.put(Spaces.mailBody, "b1", MailMessage(data: Data("abc\r\nbody".utf8)))
                try await transaction.put(Spaces.mailRaw, "r1", recipe)
                try await transaction.put(Spaces.mailUsage, MailboxUsage.key, usage)
            }
            let (readRefused, readBody, readRecipe, readUsage) = try await store.transaction { transaction in
                (
                    try await transaction.get(Spaces.mailRefused, "r1"),
                    try await transaction.get(Spaces.mailBody, "b1"),
                    try await transaction.get(Spaces.mailRaw, "r1"),
                    try await transaction.get(Spaces.mailUsage, MailboxUsage.key)
                )
            }
            #expect(readRefused == refused && readRecipe == recipe && readUsage == usage)
            #expect(
                readRecipe?.assembled(over: readBody?.data).map { String(decoding: $0, as: UTF8.self) }
                    == "Top: 1\r\nX\r\nbody")
        }
    }

    @Test(
        "a relay address's facts: consent, forwarding, deletion and the day's count", arguments: TestPostgres.storeKinds
    )
    func facts(kind: StoreKind) async throws {
        let world = try Fixture.defaultWorld()
        let sam = try #require(world.users["sam"])
        let address = world.relayEmail(of: sam, teamId: "DEF123GHIJ")
        try await kind.withFreshStore { store in
            let before = try await store.transaction {
                try await MailSteps.relayFacts(address, world: world, now: now, transaction: $0)
            }
            #expect(before?.userKey == "sam" && before?.hiddenGroups.isEmpty == true)
            try await store.transaction { transaction in
                let session = Session(transaction: transaction)
                _ = try await session.authorize(
                    userKey: "sam", appGroupId: "example", scopes: ["email"], hidesEmail: true, now: now)
                try await session.setRelayForwarding(userKey: "sam", appGroupId: "example", enabled: false, now: now)
                try await transaction.put(
                    Spaces.mailQuota, MailSteps.quotaKey(address, now: now), MailCount(count: 7),
                    index: EntryIndex(expiresAt: now.addingTimeInterval(86_400 * 2)))
            }
            let off = try await store.transaction {
                try await MailSteps.relayFacts(address.uppercased(), world: world, now: now, transaction: $0)
            }
            #expect(off?.hiddenGroups.map(\.appGroupId) == ["example"])
            #expect(off?.hiddenGroups.first?.forwarding == false)
            #expect(off?.sentToday == 7 && off?.accountDeleted == false)
            _ = try await store.transaction {
                try await Session(transaction: $0).deleteAccount(userKey: "sam", now: now)
            }
            let deleted = try await store.transaction {
                try await MailSteps.relayFacts(address, world: world, now: now, transaction: $0)
            }
            #expect(deleted?.accountDeleted == true)
            #expect(try await store.sweep(expiredBefore: now.addingTimeInterval(86_400 * 3)) >= 1)
            let count = try await store.transaction {
                try await $0.get(Spaces.mailQuota, MailSteps.quotaKey(address, now: now))
            }
            #expect(count == nil)
        }
    }
}
