import Foundation
import Testing

@testable import AppleIDMock

/// A `client_secret`'s ES256 signature is checked once per secret string; its time and identity
/// rules are checked on every request; a reset or scenario switch (a new epoch) forgets it.
@Suite("Client secret memo")
struct ClientSecretMemoTests {
    private let world: World
    private let verifier: ClientSecretVerifier

    init() async throws {
        world = try Fixture.defaultWorld()
        verifier = await ClientSecretVerifier(scenario: world.scenario)
    }

    private func verify(
        _ secret: String, client: String = Fixture.webClient, at now: Date = Fixture.start, epoch: Int = 1
    )
        async throws(AppleError) -> String
    {
        let client = world.clients[client]!
        return try await verifier.verify(
            secret, for: client, teams: world.acceptedTeams(for: client, at: now), now: now, iatLeeway: 60,
            epoch: epoch)
    }

    @Test("the signature is remembered, the claims are checked every time against the mock's clock")
    func remembered() async throws {
        let secret = try await Fixture.secret(lifetime: 3_600)
        #expect(try await verify(secret) == Fixture.teamId)
        #expect(verifier.verified.count == 1)
        #expect(verifier.verified.entry(secret, epoch: 1) != nil)
        #expect(try await verify(secret, at: Fixture.start.addingTimeInterval(60)) == Fixture.teamId)
        #expect(verifier.verified.count == 1)
        // Remembered, yet expired an hour later, and not iat-valid before it was issued.
        await #expect(throws: AppleError.self) { try await verify(secret, at: Fixture.start.addingTimeInterval(3_601)) }
        await #expect(throws: AppleError.self) { try await verify(secret, at: Fixture.start.addingTimeInterval(-600)) }
        // Remembered, yet its sub names another client.
        await #expect(throws: AppleError.self) { try await verify(secret, client: "com.example.app") }
    }

    @Test("a secret that fails is not remembered; one changed by a byte is checked anew")
    func failuresNotRemembered() async throws {
        let secret = try await Fixture.secret()
        var bytes = Array(secret.utf8)
        bytes[bytes.count - 3] = bytes[bytes.count - 3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let forged = String(decoding: bytes, as: UTF8.self)
        _ = try await verify(secret)
        await #expect(throws: AppleError.self) { try await verify(forged) }
        #expect(verifier.verified.entry(forged, epoch: 1) == nil)
        #expect(verifier.verified.count == 1)
    }

    @Test("a new epoch (reset or scenario switch) forgets every remembered secret")
    func newEpochForgets() async throws {
        let secret = try await Fixture.secret()
        _ = try await verify(secret, epoch: 1)
        #expect(verifier.verified.entry(secret, epoch: 2) == nil)
        _ = try await verify(Fixture.secret(lifetime: 600), epoch: 2)
        #expect(verifier.verified.entry(secret, epoch: 1) == nil)
        #expect(verifier.verified.count == 1)
    }

    @Test("bounded: past its capacity the memo starts over")
    func bounded() {
        let memo = VerifiedSecrets(capacity: 3)
        let entry = VerifiedSecrets.Entry(kid: "k", claims: ClientSecretClaims())
        for index in 0..<7 { memo.remember("secret-\(index)", entry, epoch: 1) }
        #expect(memo.count <= 3)
        #expect(memo.entry("secret-6", epoch: 1) != nil)
    }
}
