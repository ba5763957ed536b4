import Foundation
import Testing

@testable import AppleIDMock

/// The registry of store spaces (`Spaces.registered`): every space is declared once, with what a
/// reset does to it; every registered space survives a durable store's reopening; a space that is
/// not registered is refused by every store instead of being dropped.
@Suite("Store spaces: one registry")
struct StoreSpacesRegistryTests {
    let now = Fixture.start

    /// One value written to one space under the key `sample`, and how to read it back as JSON.
    struct Sample: Sendable {
        let space: String
        let write: @Sendable (any StateTransaction) async throws -> Void
        let read: @Sendable (any StateTransaction) async throws -> Data?
        let expected: Data

        init<Value>(_ space: StoreSpace<Value>, _ value: Value) throws {
            self.space = space.name
            write = { try await $0.put(space, "sample", value) }
            read = { transaction in
                try await transaction.get(space, "sample").map { try StoreCoding.encoder.encode($0) }
            }
            expected = try StoreCoding.encoder.encode(value)
        }
    }

    /// A value for every registered space. A space registered without a sample here fails
    /// `everySpaceHasASample`: add one when you register a space.
    private func samples() throws -> [Sample] {
        let claims = try StoreCoding.decoder.decode(
            NotificationClaims.self,
            from: Data(
                #"{"iss":"https://appleid.apple.com","aud":"com.example.app","iat":1,"exp":2,"jti":"j1","events":"{}"}"#
                    .utf8))
        return [
            try Sample(
                Spaces.consents,
                Consent(
                    userKey: "maria", appGroupId: "example", scopes: ["email"], hidesEmail: true, status: .authorized,
                    generation: 2, authorizedAt: now)),
            try Sample(Spaces.deletedAccounts, Marker(at: now)),
            try Sample(Spaces.relayOff, Marker(at: now)),
            try Sample(
                Spaces.codes,
                AuthorizationCodeRecord(
                    code: "c1", clientId: "com.example.web", appGroupId: "example", userKey: "maria",
                    redirectUri: "https://r", nonce: "n", codeChallenge: nil, codeChallengeMethod: nil, issuedAt: now,
                    expiresAt: now.addingTimeInterval(300), authTime: now, consentGeneration: 1, redeemedAt: nil)),
            try Sample(Spaces.spentCodes, Marker(at: now)),
            try Sample(
                Spaces.accessTokens,
                AccessTokenRecord(
                    token: "a1", clientId: "com.example.web", appGroupId: "example", userKey: "maria",
                    expiresAt: now.addingTimeInterval(3600), consentGeneration: 1)),
            try Sample(
                Spaces.refreshTokens,
                RefreshTokenRecord(
                    token: "r1", clientId: "com.example.web", appGroupId: "example", userKey: "maria", authTime: now,
                    nonce: nil, consentGeneration: 1)),
            try Sample(
                Spaces.migrationTokens,
                MigrationTokenRecord(
                    token: "m1", clientId: "com.example.web", teamId: "ABC123DEFG",
                    expiresAt: now.addingTimeInterval(3600))),
            try Sample(Spaces.migrationSpent, Marker(at: now)),
            try Sample(Spaces.control, ControlState(scenario: "default")),
            try Sample(Spaces.uploadedScenarios, UploadedScenario(json: "{}")),
            try Sample(Spaces.generatedKeys, GeneratedKey(pem: "-----BEGIN PRIVATE KEY-----")),
            try Sample(Spaces.faultCounts, FaultCounts(matched: 3, fired: 2)),
            try Sample(
                Spaces.namespaces,
                NamespaceRecord(
                    name: "team-a", clients: ["com.example.web"], idleTtlSeconds: 3600, createdAt: now,
                    lastUsedAt: now)),
            try Sample(
                Spaces.journal,
                JournalEntry(
                    id: "0001", at: now, wallTime: now, endpoint: "token", outcome: .refused("invalid_grant"),
                    latencyMilliseconds: 4)),
            try Sample(
                Spaces.eventLog,
                EventLogEntry(
                    source: "control", type: "consent-revoked", user: "maria", appGroupId: "example", scheduledAt: nil,
                    firedAt: now, outcome: "applied", notificationIds: ["j1"])),
            try Sample(
                Spaces.outbox,
                NotificationRecord(
                    id: "j1", appGroupId: "example", url: "http://127.0.0.1:9/n", type: "consent-revoked", sub: "s",
                    claims: claims, payload: nil, createdAt: now, status: .pending,
                    attempts: [
                        .init(startedAt: now, durationMilliseconds: 5, httpStatus: 503, outcome: .http(503))
                    ], nextAttemptAt: now, lease: nil, epoch: 1)),
            try Sample(
                Spaces.mail,
                MailRecord(
                    id: "m1", at: now, wallTime: now, direction: .inbound, outcome: .relayed, reason: nil,
                    smtpReply: "250 2.0.0 Ok", envelopeSender: "news@example.com",
                    recipient: "x@privaterelay.appleid.com", userKey: "sam", teamId: "DEF123GHIJ",
                    deliveredTo: "sam@example.org", from: "news@example.com", subject: "Hi", size: 4, overTLS: false,
                    hasRaw: true, forward: nil)),
            try Sample(
                Spaces.mailRefused,
                MailRecord(
                    id: "m2", at: now, wallTime: now, direction: .inbound, outcome: .unauthorizedSender,
                    reason: "not registered", smtpReply: "550 5.7.1 unauthorized sender",
                    envelopeSender: "evil@evil.test", recipient: "x@privaterelay.appleid.com", userKey: "sam",
                    teamId: "DEF123GHIJ", deliveredTo: nil, from: nil, subject: nil, size: nil, overTLS: false,
                    hasRaw: false, forward: nil)),
            try Sample(Spaces.mailRaw, MailMessage(data: Data("Subject: Hi\r\n\r\nbody".utf8))),
            try Sample(Spaces.mailBody, MailMessage(data: Data("Subject: Hi\r\n\r\nbody".utf8))),
            try Sample(
                Spaces.mailUsage, MailboxUsage(kept: [.init(id: "b1", bytes: 20)], droppedMessages: 1, droppedBytes: 9)),
            try Sample(Spaces.mailQuota, MailCount(count: 7)),
        ]
    }

    @Test("every registered space has one name, and a sample in this suite")
    func everySpaceHasASample() throws {
        let names = Spaces.registered.map(\.name)
        #expect(Set(names).count == names.count, "a space name is registered twice")
        #expect(Set(try samples().map(\.space)) == Set(names))
    }

    @Test("a reset clears exactly the spaces declared .clears")
    func resetList() {
        #expect(Set(Spaces.session) == Set(Spaces.registered.filter(\.clearedOnReset).map(\.name)))
        for kept in [
            Spaces.control.name, Spaces.uploadedScenarios.name, Spaces.generatedKeys.name, Spaces.journal.name,
        ] {
            #expect(!Spaces.session.contains(kept))
        }
        #expect(Spaces.session.contains(Spaces.codes.name) && Spaces.session.contains(Spaces.mail.name))
    }

    @Test("every registered space is written, reopened and read back", arguments: TestPostgres.storeKinds)
    func roundTrip(kind: StoreKind) async throws {
        let samples = try samples()
        func readAll(_ store: any StateStore) async throws -> [String: Data] {
            try await store.transaction { transaction in
                var read: [String: Data] = [:]
                for sample in samples { read[sample.space] = try await sample.read(transaction) }
                return read
            }
        }
        let expected = Dictionary(uniqueKeysWithValues: samples.map { ($0.space, $0.expected) })
        switch kind {
        case .memory:
            let store = MemoryStore()
            try await store.transaction { transaction in for sample in samples { try await sample.write(transaction) } }
            #expect(try await readAll(store) == expected)
        case .sqlite:
            let path = TestPaths.temporaryFile("state.sqlite")
            defer { try? FileManager.default.removeItem(atPath: path) }
            let first = try await StoreOpener.open(.sqlite(path: path), logger: TestPostgres.quietLogger)
            try await first.store.transaction { transaction in
                for sample in samples { try await sample.write(transaction) }
            }
            await first.close()
            let reopened = try await StoreOpener.open(.sqlite(path: path), logger: TestPostgres.quietLogger)
            let read = try await readAll(reopened.store)
            await reopened.close()
            #expect(read == expected)
        case .postgres:
            let url = try await TestPostgres.freshDatabase()
            try await TestPostgres.withStore(url: url) { store in
                try await store.transaction { transaction in
                    for sample in samples { try await sample.write(transaction) }
                }
            }
            let read = try await TestPostgres.withStore(url: url) { try await readAll($0) }
            #expect(read == expected)
        }
    }

    @Test("a space that is not registered is refused by every store, not dropped", arguments: TestPostgres.storeKinds)
    func unknownSpace(kind: StoreKind) async throws {
        let stray = StoreSpace<Marker>("not_registered", onReset: .clears)
        try await kind.withFreshStore { store in
            await #expect(throws: UnknownSpace.self) {
                try await store.transaction { try await $0.put(stray, "k", Marker(at: now)) }
            }
            await #expect(throws: UnknownSpace.self) {
                try await store.transaction { try await $0.clear([stray.name]) }
            }
        }
    }
}
