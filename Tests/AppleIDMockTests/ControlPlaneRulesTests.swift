import Foundation
import Logging
import Testing

@testable import AppleIDMock

/// The control plane's pure rules: fault rules as read and decided, and the key roster.
@Suite("Control-plane rules")
struct ControlPlaneRulesTests {
    private func read(_ json: String) -> (FaultRule?, [String]) {
        var reader = JSONReader()
        let value = try! JSONValue.parse(Data(json.utf8))
        let rule = FaultRuleReader.read(value, id: "f1", now: Fixture.start, reader: &reader)
        return (rule, reader.problems.map { "\($0.path): \($0.reason)" })
    }

    @Test("a fault rule's mistakes are each named with their field")
    func faultProblems() {
        #expect(
            read(#"{"endpoint":"tokens","error":"invalid_grant"}"#).1 == [
                #"$.endpoint: "tokens" is not one of: authorize, token, revoke, keys, usermigrationinfo, notifications"#
            ])
        #expect(
            read(#"{"endpoint":"token","latencyMilliseconds":-5}"#).1 == [
                "$.latencyMilliseconds: -5 is out of range 0...600000"
            ])
        #expect(
            read(#"{"endpoint":"keys","grantType":"refresh_token","error":"invalid_grant"}"#).1 == [
                "$.grantType: only token calls have a grant type"
            ])
        #expect(
            read(#"{"endpoint":"token","error":"invalid_grant","status":503}"#).1 == [
                "$.status: send either error (an Apple error) or status, not both"
            ])
        #expect(
            read(#"{"endpoint":"token"}"#).1 == [
                "$: say what the rule does: error, status, latencyMilliseconds, drop or truncate"
            ])
        #expect(
            read(#"{"endpoint":"notifications","status":500}"#).1 == [
                "$.status: notifications take latencyMilliseconds, drop or truncate"
            ])
        #expect(read(#"{"endpoint":"token","drop":true,"truncate":true}"#).1.count == 1)
        #expect(
            read(#"{"endpoint":"token","error":"x","times":2,"fraction":0.5}"#).1 == [
                "$.fraction: send either times or fraction, not both"
            ])
        #expect(
            read(#"{"endpoint":"token","error":"x","colour":"red"}"#).1.first?.hasPrefix("$.colour: unknown field")
                == true)
    }

    @Test("a rule for the next N calls fires N times; a seeded fraction repeats run after run")
    func firing() throws {
        let next2 = try #require(read(#"{"endpoint":"token","error":"invalid_grant","times":2}"#).0)
        #expect(next2.fires(call: 0, fired: 0) && next2.fires(call: 1, fired: 1) && !next2.fires(call: 2, fired: 2))
        #expect(next2.isSpent(fired: 2))
        let half = try #require(read(#"{"endpoint":"token","status":503,"fraction":0.5,"seed":7}"#).0)
        let pattern = (0..<200).map { half.fires(call: $0, fired: 0) }
        #expect(pattern == (0..<200).map { half.fires(call: $0, fired: 0) })
        #expect((70...130).contains(pattern.filter { $0 }.count))
        let otherSeed = try #require(read(#"{"endpoint":"token","status":503,"fraction":0.5,"seed":8}"#).0)
        #expect(pattern != (0..<200).map { otherSeed.fires(call: $0, fired: 0) })
        #expect(half.matches(.token, grantType: "refresh_token", clientId: "x"))
        let scoped = try #require(
            read(#"{"endpoint":"token","grantType":"refresh_token","clientId":"a","error":"invalid_grant"}"#).0)
        #expect(scoped.matches(.token, grantType: "refresh_token", clientId: "a"))
        #expect(!scoped.matches(.token, grantType: "authorization_code", clientId: "a"))
        #expect(!scoped.matches(.token, grantType: "refresh_token", clientId: "b"))
        #expect(!scoped.matches(.revoke, grantType: nil, clientId: "a"))
    }

    @Test("a rotation signs with the new key and keeps the old ones published for the grace period")
    func rotation() throws {
        let ring = try SigningKeyRing.load(keysDirectory: Fixture.keysDirectory)
        var roster = KeyRoster.bundled(ring, signingKid: ring.keys[0].kid)
        let now = Fixture.start
        _ = try roster.rotate(to: "NEWKEY0001", now: now, grace: 3_600, publish: true)
        #expect(roster.signingKid == "NEWKEY0001")
        #expect(roster.entries.allSatisfy { $0.isPublished(at: now.addingTimeInterval(3_599)) })
        #expect(
            roster.entries.filter { $0.isPublished(at: now.addingTimeInterval(3_600)) }.map(\.kid) == ["NEWKEY0001"])
        _ = try roster.rotate(to: "HIDDEN0002", now: now.addingTimeInterval(10), grace: 60, publish: false)
        #expect(roster.signingKid == "HIDDEN0002")
        #expect(try roster.entry("HIDDEN0002").isPublished(at: now.addingTimeInterval(11)) == false)
        try roster.publish("HIDDEN0002")
        #expect(try roster.entry("HIDDEN0002").isPublished(at: now.addingTimeInterval(11)))
        // Once the grace period is over, the next rotation drops the generated keys it ended.
        let dropped = try roster.rotate(to: "THIRD00003", now: now.addingTimeInterval(7_200), grace: 60, publish: true)
        #expect(dropped == ["NEWKEY0001"])
        #expect(throws: KeyRoster.Refusal.self) { try roster.publish("nope") }
        #expect(throws: KeyRoster.Refusal.self) { try roster.delete("THIRD00003") }  // it signs
        #expect(throws: KeyRoster.Refusal.self) { try roster.delete(ring.keys[0].kid) }  // bundled
    }

    @Test("signing with a retiring key keeps it published while it signs; the listing names every key's creation")
    func signWithRetiringKey() async throws {
        let ring = try SigningKeyRing.load(keysDirectory: Fixture.keysDirectory)
        var roster = KeyRoster.bundled(ring, signingKid: ring.keys[0].kid)
        let now = Fixture.start
        _ = try roster.rotate(to: "NEWKEY0001", now: now, grace: 60, publish: true)
        try roster.sign(with: ring.keys[0].kid)  // back to the bundled key, which was retiring
        #expect(try roster.entry(ring.keys[0].kid).isPublished(at: now.addingTimeInterval(3_600)))
        let view = KeysAdminController.KeyView(
            kid: "K", published: true, signing: true, origin: .bundled, created: nil, retiresAt: nil)
        let json = String(decoding: try JSONEncoder().encode(view), as: UTF8.self)
        #expect(json.contains(#""created":null"#) && !json.contains("retiresAt"))
    }

    @Test("a roster holds at most its capacity")
    func capacity() throws {
        let ring = try SigningKeyRing.load(keysDirectory: Fixture.keysDirectory)
        var roster = KeyRoster.bundled(ring, signingKid: ring.keys[0].kid)
        for index in roster.entries.count..<KeyRoster.capacity {
            _ = try roster.rotate(to: "K\(index)", now: Fixture.start, grace: 86_400, publish: true)
        }
        #expect(throws: KeyRoster.Refusal.self) {
            _ = try roster.rotate(to: "ONE-TOO-MANY", now: Fixture.start, grace: 86_400, publish: true)
        }
    }

    @Test("JSON nested deeper than 64 levels is refused before parsing; problems are capped at 50")
    func hardening() throws {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONValue.TooDeep.self) { try JSONValue.parse(Data(deep.utf8)) }
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSONValue.parse(Data(ok.utf8)) }
        #expect(JSONValue.nestingDepth(of: Data(#"{"a":"[[[[","b":[1]}"#.utf8)) == 2)
        var reader = JSONReader()
        for index in 0..<1_000 { reader.report(.root.member("k\(index)"), "unknown") }
        let error = try #require(reader.error(file: "request body"))
        #expect(error.problems.count == 50 && error.omitted == 950)
        #expect(error.description.hasSuffix("… and 950 more problems"))
    }

    @Test("scenario names: letters, digits, . _ - only, never . or ..")
    func names() {
        for good in ["a", "qa-2.1_x", String(repeating: "a", count: 64)] {
            #expect(ScenarioCatalog.nameProblem(good) == nil)
        }
        for bad in ["", ".", "..", "a/b", "é", "a b", String(repeating: "a", count: 65), "x%2F"] {
            #expect(ScenarioCatalog.nameProblem(bad) != nil)
        }
    }

    @Test("secrets in query strings are logged as fingerprints")
    func redaction() {
        let query =
            "client_id=com.example.web&code=c0de.SECRET&client_secret=eyJ.SECRET&Client_Secret=SECRET2&transfer_sub=SECRET3&state=s"
        let redacted = Fingerprint.redactingQuery(query)
        #expect(!redacted.contains("SECRET"))
        #expect(redacted.contains("code=sha256:\(Fingerprint.of("c0de.SECRET"))"))
        #expect(redacted.hasPrefix("client_id=com.example.web&") && redacted.hasSuffix("&state=s"))
        #expect(Fingerprint.of("abc") == "ba7816bf")
    }
}

/// What logs print of the running services: ServiceLifecycle logs each service it starts.
@Suite("Service descriptions")
struct ServiceDescriptionTests {
    @Test("the admin token never appears in a service's description, only its fingerprint")
    func adminTokenHidden() async throws {
        var configuration = Fixture.configuration()
        configuration.adminToken = "s3cr3t-admin-tok"
        let services = try await MockServices.load(
            configuration: configuration, store: MemoryStore(), clock: MockClock(), logger: Logger(label: "test"))
        for text in [
            String(describing: services), String(reflecting: services),
            String(describing: HousekeepingService(namespaces: services.namespaces, logger: services.logger)),
            String(
                describing: NotificationDeliveryService(
                    namespaces: services.namespaces, journal: services.journal, logger: services.logger)),
            String(
                describing: JournalService(state: services.state, journal: services.journal, logger: services.logger)),
        ] {
            #expect(!text.contains("s3cr3t"), "\(text)")
        }
        #expect(String(describing: services).contains(Fingerprint.of("s3cr3t-admin-tok")))
    }
}
