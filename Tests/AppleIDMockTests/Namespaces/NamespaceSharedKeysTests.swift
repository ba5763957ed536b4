import Foundation
import Hummingbird
import HummingbirdTesting
import JWTKit
import Logging
import Testing

@testable import AppleIDMock

/// Namespaces that never touch their keys share the bundled key pairs under the
/// same `kid`s, so the unprefixed `/auth/keys` stays small with 1,000 of them; a namespace gets
/// `kid`s of its own only when it rotates, adds or unpublishes a key (copy on write), and what one
/// namespace does to its keys never shows in another's JWKS.
@Suite("Namespaces: shared keys, copy on write")
struct NamespaceSharedKeysTests {
    /// A server on a memory store (or, with `watched` false, a store that tells no control
    /// generation, as PostgreSQL, so the other namespaces' keys are read on every call).
    private static func services(clock: MockClock, watched: Bool = true) async throws -> MockServices {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return try await MockServices.load(
            configuration: Fixture.configuration(), store: watched ? MemoryStore() : UnwatchedStore(), clock: clock,
            logger: logger)
    }

    /// The router of `services`, with the `/ns/{name}` prefix.
    private static func application(_ services: MockServices) -> some ApplicationProtocol {
        Application(responder: NamespacePrefixResponder(router: buildRouter(services: services).buildResponder()))
    }

    /// The `kid`s of the JWKS at `uri`.
    private static func kids(_ client: some TestClientProtocol, _ uri: String) async throws -> Set<String> {
        try kids(ofJWKS: try await client.execute(uri: uri, method: .get).text)
    }

    /// The `kid`s of a JWKS.
    private static func kids(ofJWKS text: String) throws -> Set<String> {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let keys = try #require(object?["keys"] as? [[String: Any]])
        return Set(keys.compactMap { $0["kid"] as? String })
    }

    /// Verifies `token` against `jwks` as a backend does, by its `kid` (jwt-kit alone would also try
    /// every other key when the `kid` is unknown).
    private static func verify(_ token: String, jwks: String, keys: JWTKeyCollection? = nil) async throws {
        let signedKid = try #require(Self.kid(of: token))
        #expect(try kids(ofJWKS: jwks).contains(signedKid), "\(signedKid)")
        var collection = keys
        if collection == nil { collection = try await JWTKeyCollection().add(jwksJSON: jwks) }
        _ = try await collection?.verify(token, as: AppleIdentityToken.self, expectedAudience: Fixture.webClient)
    }

    /// An id_token minted for sam in the namespace whose control plane is at `prefix`.
    private static func mint(_ client: some TestClientProtocol, _ prefix: String) async throws -> String {
        let minted = try await client.postJSON(
            "\(prefix)/__admin/mint/id-token", #"{"user":"sam","clientId":"\#(Fixture.webClient)"}"#)
        #expect(minted.status == .ok, "\(minted.text)")
        return try #require(minted.json["token"] as? String)
    }

    /// The `kid` in a compact JWS's header.
    private static func kid(of token: String) -> String? {
        guard let header = token.split(separator: ".").first, let data = Fixture.base64URL(header) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["kid"] as? String
    }

    @Test("1,000 namespaces, 2 rotated: the unprefixed JWKS is at most 9 keys, under 50 KiB, and verifies every one")
    func thousandNamespaces() async throws {
        let services = try await Self.services(clock: .fixed(at: Date()))
        try await Self.application(services).test(.router) { client in
            let made = ContinuousClock.now
            for index in 0..<Namespaces.limit {
                let response = try await client.postJSON("/__admin/namespaces/n\(index)", "{}", method: .put)
                try #require(response.status == .created, "n\(index): \(response.text)")
            }
            let making = ContinuousClock.now - made
            var rotated: [String: String] = [:]
            for name in ["n7", "n500"] {
                let response = try await client.postJSON("/ns/\(name)/__admin/keys/rotate", "{}")
                #expect(response.status == .created)
                rotated[name] = try #require(response.json["kid"] as? String)
            }
            let response = try await client.execute(uri: "/auth/keys", method: .get)
            let jwks = response.text
            let keys = try #require(response.json["keys"] as? [[String: Any]])
            #expect(keys.count <= 9, "\(keys.count) keys")
            #expect(response.body.readableBytes < 50 * 1024, "\(response.body.readableBytes) bytes")
            let everywhere = try await JWTKeyCollection().add(jwksJSON: jwks)
            let verifying = ContinuousClock.now
            for index in 0..<Namespaces.limit {
                let name = "n\(index)"
                let token = try await Self.mint(client, "/ns/\(name)")
                if let kid = rotated[name] { #expect(Self.kid(of: token) == kid) }
                try await Self.verify(token, jwks: jwks, keys: everywhere)
                try await Self.verify(
                    token, jwks: try await client.execute(uri: "/ns/\(name)/auth/keys", method: .get).text)
            }
            print(
                "1,000 namespaces made in \(making), their tokens verified in \(ContinuousClock.now - verifying);"
                    + " the unprefixed JWKS: \(keys.count) keys, \(response.body.readableBytes) bytes")
        }
    }

    @Test("rotating, adding and unpublishing give a namespace kids of its own; the shared ones and others stay")
    func copyOnWrite() async throws {
        let services = try await Self.services(clock: .fixed(at: Date()))
        try await Self.application(services).test(.router) { client in
            let home = try await Self.kids(client, "/auth/keys")
            for name in ["team-a", "team-b"] {
                #expect(try await client.postJSON("/__admin/namespaces/\(name)", "{}", method: .put).status == .created)
            }
            let shared = try await Self.kids(client, "/ns/team-a/auth/keys")
            let ring = services.state.catalog.keyRing
            #expect(shared == Set(ring.keys.map { NamespaceScope.sharedKid($0.kid) }))
            #expect(try await Self.kids(client, "/ns/team-b/auth/keys") == shared)
            #expect(shared.isDisjoint(with: home))
            #expect(try await Self.kids(client, "/auth/keys") == home.union(shared))

            // A rotation: team-a's new key is its own; the shared kids stay (retiring in team-a only).
            let rotated = try #require(
                try await client.postJSON("/ns/team-a/__admin/keys/rotate", #"{"graceSeconds":600}"#)
                    .json["kid"] as? String)
            #expect(!shared.contains(rotated) && !home.contains(rotated))
            #expect(try await Self.kids(client, "/ns/team-a/auth/keys") == shared.union([rotated]))
            #expect(try await Self.kids(client, "/ns/team-b/auth/keys") == shared)
            #expect(try await Self.kids(client, "/auth/keys") == home.union(shared).union([rotated]))

            // Unpublishing the key team-b signs with: a kid of its own for that key, unpublished.
            let signing = try #require(
                try await client.execute(uri: "/ns/team-b/__admin/keys", method: .get).json["signingKid"] as? String)
            #expect(shared.contains(signing))
            let unpublished = try await client.execute(
                uri: "/ns/team-b/__admin/keys/\(signing)/unpublish", method: .post)
            #expect(unpublished.status == .ok)
            let own = try #require(unpublished.json["signingKid"] as? String)
            #expect(
                own
                    == NamespaceScope(name: "team-b").ownKid(
                        try #require(
                            ring.keys.first {
                                NamespaceScope.sharedKid($0.kid) == signing
                            }
                        ).kid))
            let listed = try #require(unpublished.json["keys"] as? [[String: Any]])
            #expect(listed.first { $0["kid"] as? String == own }?["published"] as? Bool == false)
            #expect(!listed.contains { $0["kid"] as? String == signing })
            #expect(try await Self.kids(client, "/ns/team-b/auth/keys") == shared.subtracting([signing]))
            #expect(try await Self.kids(client, "/ns/team-a/auth/keys") == shared.union([rotated]))
            #expect(try await Self.kids(client, "/auth/keys") == home.union(shared).union([rotated]))
            // team-b's tokens now carry a kid no JWKS publishes (a backend meets an unknown kid; not
            // checked by verifying: jwt-kit falls back to another key for a kid it does not know,
            // and every JWKS holds this key pair under another kid); team-a's verify against both.
            let hidden = try await Self.mint(client, "/ns/team-b")
            #expect(Self.kid(of: hidden) == own)
            for jwks in ["/auth/keys", "/ns/team-b/auth/keys"] {
                #expect(!(try await Self.kids(client, jwks)).contains(own), "\(jwks)")
            }
            let teamA = try await Self.mint(client, "/ns/team-a")
            #expect(Self.kid(of: teamA) == rotated)
            for jwks in ["/auth/keys", "/ns/team-a/auth/keys"] {
                try await Self.verify(teamA, jwks: try await client.execute(uri: jwks, method: .get).text)
            }

            // Adding a key that is not published yet: team-b's own, in no JWKS.
            let added = try #require(
                try await client.postJSON("/ns/team-b/__admin/keys/rotate", #"{"publish":false}"#)
                    .json["kid"] as? String)
            #expect(try await Self.kids(client, "/ns/team-b/auth/keys") == shared.subtracting([signing]))
            #expect(!(try await Self.kids(client, "/auth/keys")).contains(added))
            // Published: in team-b's JWKS and the unprefixed one, in no other namespace's.
            #expect(
                try await client.execute(uri: "/ns/team-b/__admin/keys/\(added)/publish", method: .post).status == .ok)
            #expect(try await Self.kids(client, "/auth/keys") == home.union(shared).union([rotated, added]))
            #expect(try await Self.kids(client, "/ns/team-a/auth/keys") == shared.union([rotated]))

            // Back to the bundled keys: the shared kids again.
            #expect(try await client.execute(uri: "/ns/team-b/__admin/keys", method: .delete).status == .ok)
            #expect(try await Self.kids(client, "/ns/team-b/auth/keys") == shared)
            #expect(try await Self.kids(client, "/auth/keys") == home.union(shared).union([rotated]))
        }
    }

    @Test("the default namespace's kids are its own: unpublishing one takes it out of the unprefixed JWKS")
    func defaultNamespaceKeepsItsKids() async throws {
        let services = try await Self.services(clock: .fixed(at: Date()))
        try await Self.application(services).test(.router) { client in
            let home = try await Self.kids(client, "/auth/keys")
            #expect(home == Set(services.state.catalog.keyRing.keys.map(\.kid)))
            #expect(try await client.postJSON("/__admin/namespaces/team-a", "{}", method: .put).status == .created)
            let shared = try await Self.kids(client, "/ns/team-a/auth/keys")
            let signing = try #require(
                try await client.execute(uri: "/__admin/keys", method: .get).json["signingKid"] as? String)
            #expect(try await client.execute(uri: "/__admin/keys/\(signing)/unpublish", method: .post).status == .ok)
            #expect(try await Self.kids(client, "/auth/keys") == home.union(shared).subtracting([signing]))
            #expect(try await Self.kids(client, "/ns/team-a/auth/keys") == shared)
        }
    }

    @Test(
        "the unprefixed JWKS follows every change: a rotation, a grace period ending, a namespace made or deleted",
        arguments: [true, false])
    func followsChanges(watched: Bool) async throws {
        let clock = MockClock.fixed(at: Date())
        let services = try await Self.services(clock: clock, watched: watched)
        try await Self.application(services).test(.router) { client in
            let home = try await Self.kids(client, "/auth/keys")
            #expect(try await client.postJSON("/__admin/namespaces/team-a", "{}", method: .put).status == .created)
            let shared = try await Self.kids(client, "/ns/team-a/auth/keys")
            #expect(try await Self.kids(client, "/auth/keys") == home.union(shared))
            let rotated = try #require(
                try await client.postJSON("/ns/team-a/__admin/keys/rotate", #"{"graceSeconds":600}"#)
                    .json["kid"] as? String)
            #expect(try await Self.kids(client, "/auth/keys") == home.union(shared).union([rotated]))
            // The grace period ends on team-a's clock, with no record changed: no namespace keeps
            // the shared keys any more.
            clock.advance(by: 601)
            #expect(try await Self.kids(client, "/ns/team-a/auth/keys") == [rotated])
            #expect(try await Self.kids(client, "/auth/keys") == home.union([rotated]))
            #expect(try await client.postJSON("/__admin/namespaces/team-b", "{}", method: .put).status == .created)
            #expect(try await Self.kids(client, "/auth/keys") == home.union(shared).union([rotated]))
            #expect(try await client.execute(uri: "/__admin/namespaces/team-a", method: .delete).status == .ok)
            #expect(try await Self.kids(client, "/auth/keys") == home.union(shared))
        }
    }

    @Test("the shared kids are derived from the bundled keys alone: the same on every server, none another's")
    func sharedKidsAreDeterministic() async throws {
        let ring = try SigningKeyRing.load(keysDirectory: Fixture.keysDirectory)
        var everyKid: Set<String> = []
        for key in ring.keys {
            let shared = NamespaceScope.sharedKid(key.kid)
            #expect(shared.count == 10 && shared != key.kid)
            #expect(NamespaceScope(name: "team-a").bundledKey(named: shared, in: ring)?.kid == key.kid)
            #expect(NamespaceScope.default.bundledKey(named: shared, in: ring) == nil)
            #expect(NamespaceScope(name: "team-a").ownKid(replacingShared: shared, in: ring) != shared)
            everyKid.formUnion([shared, key.kid, NamespaceScope(name: "team-a").ownKid(key.kid)])
        }
        #expect(everyKid.count == 3 * ring.keys.count)
        // Two servers (two replicas, or two runs) publish the same shared kids.
        var seen: [Set<String>] = []
        for _ in 0..<2 {
            let services = try await Self.services(clock: .fixed(at: Date()))
            seen.append(
                try await Self.application(services).test(.router) { client in
                    _ = try await client.postJSON("/__admin/namespaces/team-z", "{}", method: .put)
                    return try await Self.kids(client, "/ns/team-z/auth/keys")
                })
        }
        #expect(seen[0] == seen[1])
    }
}

/// A memory store that tells no control generation, as a store other processes write too.
private struct UnwatchedStore: DelegatingStore {
    let inner = MemoryStore()
    var description: String { "unwatched" }

    func transaction<Result: Sendable>(_ body: @escaping @Sendable (any StateTransaction) async throws -> Result)
        async throws -> Result
    {
        try await inner.transaction(body)
    }
}
