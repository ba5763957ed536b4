import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import AppleIDMock

/// The pure rules of namespaces: names, the path prefix, the cookie, making one (the limit, tags,
/// claimed clients, options) and when it is idle, the tag a code or token carries, where a
/// namespace's entries are stored, and its identifiers and key ids.
@Suite("Namespaces: rules")
struct NamespaceRulesTests {
    @Test("a name is 1 to 64 of A-Z a-z 0-9 . _ -; anything else is named in the refusal")
    func names() {
        for good in ["a", "team-a", "Team_A.1", String(repeating: "x", count: 64), "default", UUID().uuidString] {
            #expect(NamespaceName.problem(good) == nil, "\(good)")
        }
        #expect(NamespaceName.problem("")?.contains("empty") == true)
        #expect(NamespaceName.problem(String(repeating: "x", count: 65))?.contains("at most 64") == true)
        #expect(NamespaceName.problem("team a")?.contains("\" \"") == true)
        #expect(NamespaceName.problem("a/b")?.contains("\"/\"") == true)
        #expect(NamespaceName.problem("é")?.contains("\"é\"") == true)
        #expect(NamespaceName.problem("a\u{0}b")?.contains("control character") == true)
        // Dots alone are what a browser or proxy folds out of a path: never a name, nor one that
        // begins or ends with anything but a letter or digit.
        for bad in [".", "..", "...", "-a", "a-", "_a", "a.", ".env"] {
            #expect(NamespaceName.problem(bad)?.contains("begins and ends with a letter or digit") == true, "\(bad)")
        }
    }

    @Test("/ns/../ is refused in the format of the surface it came to, and makes no namespace")
    func dotsInThePrefix() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let admin = try await client.execute(uri: "/ns/../__admin/clock", method: .get)
            #expect(admin.status == .badRequest)
            #expect(admin.text.contains("begins and ends with a letter or digit"))
            let apple = try await client.execute(uri: "/ns/.../auth/keys", method: .get)
            #expect(apple.status == .badRequest)
            #expect(apple.json["error"] as? String == "invalid_request")
            let listed = try await client.execute(uri: "/__admin/namespaces", method: .get).text
            #expect(!listed.contains("\"..\""))
        }
    }

    @Test("the prefix /ns/{name} is split from the rest of the target, which always begins with /")
    func prefix() {
        typealias Responder = NamespacePrefixResponder<NoResponder>
        #expect(Responder.splitPrefix("/ns/team-a/auth/token?x=1")! == ("team-a", "/auth/token?x=1"))
        #expect(Responder.splitPrefix("/ns/team-a")! == ("team-a", "/"))
        #expect(Responder.splitPrefix("/ns/team-a?x=1")! == ("team-a", "/?x=1"))
        #expect(Responder.splitPrefix("/ns//auth/keys")! == ("", "/auth/keys"))
        #expect(Responder.splitPrefix("/nsx/a/auth") == nil)
        #expect(Responder.splitPrefix("/auth/ns/a") == nil)
        #expect(RouteGroup(path: "/ns/team-a/auth/token") == .apple(endpoint: "token"))
        #expect(RouteGroup(path: "/ns/team-a/__admin/clock") == .controlPlane(dashboardFile: false))
        #expect(RouteGroup(path: "/ns/team-a/__admin/") == .controlPlane(dashboardFile: true))
    }

    @Test("a path's group is read by component, as the router matches, without an array of them")
    func routeGroups() {
        let cases: [(String, RouteGroup)] = [
            ("/auth/token", .apple(endpoint: "token")), ("//auth//token/", .apple(endpoint: "token")),
            ("/auth", .apple(endpoint: nil)), ("/auth/authorize/consent", .apple(endpoint: "authorize")),
            ("/__admin", .controlPlane(dashboardFile: true)), ("/__admin/clock", .controlPlane(dashboardFile: false)),
            ("/__admin/dashboard/app.js", .controlPlane(dashboardFile: true)),
            ("/__admin/dashboard/a/b", .controlPlane(dashboardFile: false)),
            ("/__admin/other/app.js", .controlPlane(dashboardFile: false)),
            ("/ns/x/__admin/dashboard/app.js", .controlPlane(dashboardFile: true)), ("/ns", .other),
            ("/ns/x", .other), ("/ns//x/auth/keys", .apple(endpoint: "keys")), ("/", .other), ("", .other),
            ("/health", .other), ("/authx/token", .other), ("/ns/auth/token", .other),
        ]
        for (path, group) in cases {
            #expect(RouteGroup(path: path) == group, "\(path)")
        }
    }

    @Test("the dashboard's cookie is read among others; a badly formed one is ignored")
    func cookie() {
        var headers = HTTPFields()
        headers[.cookie] = "a=1; apple_id_mock_namespace=team-a; b=2"
        #expect(NamespaceRequest.cookie(in: headers) == "team-a")
        headers[.cookie] = "apple_id_mock_namespace=bad name"
        #expect(NamespaceRequest.cookie(in: headers) == nil)
        #expect(NamespaceRequest.cookie(in: HTTPFields()) == nil)
    }

    @Test("a code or token carries its namespace's tag, hidden in bits that still look random")
    func tags() {
        for tag: UInt32 in [0, 1, 0xFFFF_FFFF, NamespaceScope(name: "team-a").tag] {
            for kind in OpaqueToken.Kind.allCases {
                let value = OpaqueToken.make(kind, tag: tag)
                #expect(OpaqueToken.parse(value)?.kind == kind)
                #expect(OpaqueToken.tag(of: value) == tag)
            }
        }
        // The default namespace's values do not share a visible marker.
        let heads = Set((0..<64).map { _ in OpaqueToken.make(.refreshToken).prefix(9) })
        #expect(heads.count > 60)
        #expect(OpaqueToken.tag(of: "not a token") == nil)
    }

    @Test("a namespace's entries: its own copy of each space, groups prefixed, codes and tokens shared")
    func storage() {
        let scope = NamespaceScope(name: "team-a")
        #expect(scope.storedName("consent") == "team-a/consent")
        #expect(NamespaceScope.default.storedName("consent") == "consent")
        #expect(scope.storedGroup("sam\u{1F}group") == "team-a/sam\u{1F}group")
        #expect(NamespaceScope.namespace(ofStoredSpace: "team-a/outbox") == "team-a")
        #expect(NamespaceScope.namespace(ofStoredSpace: "outbox") == "default")
        #expect(StoredSpaceName(parsing: "team-a/outbox") == StoredSpaceName("outbox", in: "team-a"))
        #expect(StoredSpaceName(parsing: "outbox") == StoredSpaceName("outbox", in: nil))
        #expect(StoredSpaceName("outbox", in: "team-a").description == "team-a/outbox")
        #expect(StoredSpaceName.copiesPattern(of: "access_token") == "%/access\\_token")
        #expect(Spaces.registeredSpace(named: "team-a/journal")?.name == "journal")
        #expect(Spaces.registeredSpace(named: "team-a/nothing") == nil)
        #expect(scope.tag != 0 && scope.tag == NamespaceScope(name: "team-a").tag)
        #expect(NamespaceScope(name: "default").tag == 0)
        #expect(Spaces.refreshTokens.keys == .issuedValues && Spaces.consents.keys == .perNamespace)
    }

    @Test("identities: own mixes the namespace into sub and relay address; shared keeps the default's")
    func identities() throws {
        let scenario = try Fixture.defaultWorld().scenario
        let home = World(scenario: scenario)
        let own = World(scenario: scenario, identityNamespace: "team-a")
        let other = World(scenario: scenario, identityNamespace: "team-b")
        let sam = try #require(home.users["sam"])
        #expect(home.subject(of: sam, teamId: Fixture.teamId) != own.subject(of: sam, teamId: Fixture.teamId))
        #expect(own.subject(of: sam, teamId: Fixture.teamId) != other.subject(of: sam, teamId: Fixture.teamId))
        #expect(
            own.subject(of: sam, teamId: Fixture.teamId)
                == World(scenario: scenario, identityNamespace: "team-a")
                .subject(of: sam, teamId: Fixture.teamId))
        #expect(home.relayEmail(of: sam, teamId: Fixture.teamId) != own.relayEmail(of: sam, teamId: Fixture.teamId))
        #expect(own.relayOwner(of: own.relayEmail(of: sam, teamId: Fixture.teamId))?.user.key == "sam")
        #expect(home.relayOwner(of: own.relayEmail(of: sam, teamId: Fixture.teamId)) == nil)
    }

    @Test("each namespace has its own kids for the bundled keys, the same key pair")
    func kids() {
        let team = NamespaceScope(name: "team-a")
        #expect(NamespaceScope.default.ownKid("Mk7pQ2xR9a") == "Mk7pQ2xR9a")
        #expect(team.ownKid("Mk7pQ2xR9a") != "Mk7pQ2xR9a")
        #expect(team.ownKid("Mk7pQ2xR9a") == NamespaceScope(name: "team-a").ownKid("Mk7pQ2xR9a"))
        #expect(team.ownKid("Mk7pQ2xR9a") != NamespaceScope(name: "team-b").ownKid("Mk7pQ2xR9a"))
    }

    @Test("making one, without a store: the limit, a shared tag, a client_id claimed twice, options; idleness")
    func makingAndIdleness() throws {
        #expect(throws: Never.self) {
            try NamespaceRules.refuseMaking("a", count: NamespaceRules.limit - 1, tagOwner: nil)
        }
        #expect(throws: ControlRefusal.self) {
            try NamespaceRules.refuseMaking("a", count: NamespaceRules.limit, tagOwner: nil)
        }
        #expect(throws: ControlRefusal.self) { try NamespaceRules.refuseMaking("a", count: 0, tagOwner: "b") }
        #expect(throws: Never.self) { try NamespaceRules.refuseMaking("a", count: 0, tagOwner: "a") }

        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let other = NamespaceRecord(
            name: "b", clients: ["web.b"], idleTtlSeconds: 60, createdAt: start, lastUsedAt: start)
        let records = [(key: "b", value: other)]
        #expect(throws: ControlRefusal.self) { try NamespaceRules.refuseClaims(["web.b"], for: "a", records: records) }
        #expect(throws: Never.self) { try NamespaceRules.refuseClaims(["web.b"], for: "b", records: records) }
        #expect(throws: Never.self) { try NamespaceRules.refuseClaims(["web.a"], for: "a", records: records) }

        let made = NamespaceRules.record(nil, name: "a", options: NamespaceOptions(), now: start)
        #expect(made.idleTtlSeconds == NamespaceOptions.defaultIdleTtlSeconds && made.createdAt == start)
        let later = start.addingTimeInterval(10)
        let changed = NamespaceRules.record(
            made, name: "a", options: NamespaceOptions(clients: ["web.a"], idleTtlSeconds: 5), now: later)
        #expect(changed.clients == ["web.a"] && changed.idleTtlSeconds == 5)
        #expect(changed.createdAt == start && changed.lastUsedAt == later)

        #expect(!NamespaceRules.isIdle(other, at: start.addingTimeInterval(60)))
        #expect(NamespaceRules.isIdle(other, at: start.addingTimeInterval(61)))
        #expect(NamespaceRules.newControl(initialScenario: "default").identities == .own)
    }
}

/// A responder that never answers: `NamespacePrefixResponder`'s static rules need a type.
struct NoResponder: HTTPResponder {
    typealias Context = MockRequestContext
    func respond(to request: Request, context: Context) async throws -> Response { Response(status: .notFound) }
}
