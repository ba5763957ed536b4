import AppleIDMockTesting
import AsyncHTTPClient
import Foundation
import Testing

/// `withNamespace`: many worlds on one mock, each handle's helpers acting on its own, the
/// namespace gone afterwards whatever the body did.
@Suite("AppleIDMockTesting kit: namespaces")
struct NamespaceKitTests {
    static let webClient = "com.example.web"
    static let appClient = "com.example.app"
    static let redirect = "http://localhost:3000/auth/apple/callback"
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// The names of the mock's namespaces, `default` first.
    static func names(_ mock: MockAppleID) async throws -> [String] {
        struct Listing: Decodable {
            struct Namespace: Decodable { var name: String }
            var namespaces: [Namespace]
        }
        return try await mock.send(.get, "/__admin/namespaces").decode(Listing.self).namespaces.map(\.name)
    }

    /// The `sub` of an identity token (its payload, not verified: the kit's own tests verify).
    static func subject(of idToken: String) throws -> String {
        struct Claims: Decodable { var sub: String }
        var payload = String(idToken.split(separator: ".")[1])
        payload = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        return try JSONDecoder().decode(Claims.self, from: try #require(Data(base64Encoded: payload))).sub
    }

    /// The `kid`s of a JWKS.
    static func kids(_ jwks: String) throws -> Set<String> {
        struct JWKS: Decodable {
            struct Key: Decodable { var kid: String }
            var keys: [Key]
        }
        return Set(try JSONDecoder().decode(JWKS.self, from: Data(jwks.utf8)).keys.map(\.kid))
    }

    @Test("two namespaces at once on one mock: own sign-ins, clocks and journals, shared keys; both gone afterwards")
    func twoNamespacesAtOnce() async throws {
        try await MockAppleID.run(.live, options: .init(startingAt: Self.start)) { mock in
            try await mock.withNamespace { a in
                try await mock.withNamespace("team-b") { b in
                    #expect(b.namespace == "team-b" && a.namespace != nil && a.namespace != b.namespace)
                    let root = try #require(mock.baseURL)
                    #expect(b.baseURL == root + "/ns/team-b")
                    #expect(try await Set(Self.names(mock)) == ["default", a.namespace!, "team-b"])

                    // A backend given the namespace's base URL finds its endpoints under the prefix.
                    let discovery = try await HTTPClient.shared.execute(
                        HTTPClientRequest(url: try #require(b.baseURL) + "/.well-known/openid-configuration"),
                        timeout: .seconds(5))
                    let document = String(buffer: try await discovery.body.collect(upTo: 1 << 16))
                    #expect(document.contains(#"/ns/team-b/auth/token""#))

                    // Both sign the same user in at the same time.
                    async let signInA = a.signInWeb("sam", clientId: Self.webClient, redirectURI: Self.redirect)
                    async let signInB = b.signInWeb("sam", clientId: Self.webClient, redirectURI: Self.redirect)
                    let (inA, inB) = try await (signInA, signInB)
                    #expect(try Self.subject(of: inA.idToken) != Self.subject(of: inB.idToken))

                    // A's clock moves; B's and the default world's stand still.
                    try await a.advanceClock(by: .seconds(600))
                    #expect(try await a.now() == Self.start.addingTimeInterval(600))
                    #expect(try await b.now() == Self.start)
                    #expect(try await mock.now() == Self.start)

                    // So A's code has expired and B's has not.
                    await #expect {
                        _ = try await a.exchange(code: inA.code, clientId: Self.webClient, redirectURI: Self.redirect)
                    } throws: { error in
                        "\(error)".contains("invalid_grant")
                    }
                    let tokens = try await b.exchange(
                        code: inB.code, clientId: Self.webClient, redirectURI: Self.redirect)
                    #expect(tokens.refreshToken != nil)

                    // Each journal holds its own calls only; the default world's holds none.
                    #expect(try await a.journal(endpoint: "token").map(\.outcome) == ["invalid_grant"])
                    #expect(try await b.journal(endpoint: "token").map(\.outcome) == ["ok"])
                    #expect(try await mock.journal(endpoint: "token").isEmpty)
                    try await b.verify(.init(endpoint: "token", outcome: "ok"), count: .exactly(1))
                    try await a.verify(.init(endpoint: "token", outcome: "ok"), count: .exactly(0))

                    // Neither changed its keys: both publish the same shared kids, which Apple's
                    // unprefixed URL publishes too, beside the default world's own.
                    let kidsOfA = try Self.kids(try await a.keys())
                    let kidsOfB = try Self.kids(try await b.keys())
                    let everywhere = try Self.kids(try await mock.keys())
                    #expect(kidsOfB == kidsOfA)
                    #expect(kidsOfA.count == 3 && kidsOfA.isStrictSubset(of: everywhere))

                    // A lifecycle event in B leaves A's users alone.
                    let native = try await a.signInNative("maria", bundleId: Self.appClient)
                    let fired = try await b.trigger(.accountDeleted, user: "maria")
                    #expect(fired.outcome == "applied")
                    let again = try await a.signInNative("maria", bundleId: Self.appClient)
                    #expect(again.user == native.user && again.email == nil)
                    #expect(try await a.notifications().isEmpty)
                    #expect(try await mock.notifications().isEmpty)
                }
                #expect(try await Self.names(mock).contains("team-b") == false)
            }
            #expect(try await Self.names(mock) == ["default"])
        }
    }

    @Test("a namespace is deleted after a body that throws, and the error is the body's")
    func deletedAfterThrow() async throws {
        struct Boom: Error {}
        try await MockAppleID.run(.router) { mock in
            await #expect(throws: Boom.self) {
                try await mock.withNamespace("doomed") { ns in
                    try await ns.advanceClock(by: .seconds(60))
                    #expect(try await Self.names(mock).contains("doomed"))
                    throw Boom()
                }
            }
            let gone = try await mock.send(.get, "/__admin/namespaces/doomed")
            #expect(gone.status == 404)
            #expect(try await Self.names(mock) == ["default"])
        }
    }

    @Test("options: shared identities keep the default world's sub; a scenario; a bad name is the mock's refusal")
    func options() async throws {
        try await MockAppleID.run(.router) { mock in
            let inDefault = try await mock.signInNative("sam", bundleId: Self.appClient)
            let shared = try await mock.withNamespace(options: .init(identities: .shared)) { ns in
                try await ns.signInNative("sam", bundleId: Self.appClient)
            }
            #expect(shared.user == inDefault.user && shared.email != nil)
            let own = try await mock.withNamespace(options: .init(scenario: "transfer", identities: .own)) { ns in
                struct View: Decodable {
                    var scenario: String
                    var identities: String
                }
                let name = try #require(ns.namespace)
                let view = try await mock.send(.get, "/__admin/namespaces/\(name)").decode(View.self)
                #expect(view.scenario == "transfer" && view.identities == "own")
                await #expect {
                    try await ns.useScenario(named: "no-such-scenario")
                } throws: { error in
                    "\(error)".contains("/ns/\(name)/__admin/scenario answered 400")
                }
                return try await ns.signInNative("sam", bundleId: Self.appClient)
            }
            #expect(own.user != inDefault.user)
            await #expect {
                try await mock.withNamespace("not/a name") { _ in }
            } throws: { error in
                "\(error)".contains("400") && "\(error)".contains("A-Z a-z 0-9")
            }
            await #expect {
                try await mock.withNamespace(options: .init(idleTTL: .milliseconds(1500))) { _ in }
            } throws: { error in
                "\(error)".contains("whole seconds")
            }
        }
    }
}

/// The namespace example of `docs/testing-kit.md` is `NamespaceExampleTests.swift`, character for character.
@Suite("Namespace example")
struct NamespaceExampleDriftTests {
    @Test("docs/testing-kit.md shows the namespace example that runs")
    func sameText() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let page = try String(
            contentsOf: folder.appendingPathComponent("../../docs/testing-kit.md").standardizedFileURL,
            encoding: .utf8)
        let example = try String(
            contentsOf: folder.appendingPathComponent("NamespaceExampleTests.swift"), encoding: .utf8)
        let code = try #require(example.range(of: "import AppleIDMockTesting")).lowerBound
        #expect(page.contains("```swift\n" + example[code...] + "```\n"))
    }
}
