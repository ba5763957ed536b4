import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import X509

@testable import AppleIDMock

/// The pure rules of backend conformance runs: the config's checks, templates, how acceptance is
/// read, verdicts, and the tokens each case makes.
@Suite("Backend conformance: rules")
struct ConformanceRulesTests {
    private static let minimal: JSONValue = .object([
        "clientId": .string("com.example.app"),
        "native": .object([
            "url": .string("http://127.0.0.1:3000/login"),
            "body": .string(#"{"identityToken":"{{identityToken}}"}"#),
        ]),
    ])

    private static func read(_ body: JSONValue) -> (ConformanceConfig?, [String]) {
        var reader = JSONReader()
        let config = ConformanceConfig.read(body, reader: &reader)
        return (config, reader.problems.map { "\($0.path): \($0.reason)" })
    }

    private static func with(_ changes: [String: JSONValue]) -> JSONValue {
        guard case .object(var members) = minimal else { return minimal }
        members.merge(changes) { _, new in new }
        return .object(members)
    }

    @Test("a minimal config reads with its defaults: every case, sha256-hex nonces, 2xx acceptance, user sam")
    func minimalConfig() throws {
        let (config, problems) = Self.read(Self.minimal)
        #expect(problems.isEmpty)
        let read = try #require(config)
        #expect(read.cases == ConformanceCase.allCases)
        #expect(read.nonce == .sha256Hex && read.user == "sam" && read.accepted.status == "2xx")
        #expect(read.native?.method == "POST" && read.exchange == nil && !read.keep && read.mockUrl == nil)
        let (named, none) = Self.read(Self.with(["mockUrl": .string("http://host.docker.internal:8080")]))
        #expect(none.isEmpty && named?.mockUrl == "http://host.docker.internal:8080")
    }

    @Test("bad configs name each field: unknown case ids, a template without its token, unknown placeholders, URLs")
    func badConfigs() {
        let (_, problems) = Self.read(
            Self.with([
                "knownFindings": .array([.string("aud-other-client"), .string("no-such-case")]),
                "cases": .array([.number(3)]),
                "native": .object(["url": .string("ftp://x"), "body": .string("{{identityTokn}}")]),
                "exchange": .object(["url": .string("http://127.0.0.1:1/code"), "body": .string("{}")]),
                "web": .object([
                    "start": .string("javascript:alert(1)"), "accepted": .object(["finalUrlContains": .number(1)]),
                ]),
                "notifications": .object([
                    "url": .string("ftp://127.0.0.1/notify"), "type": .string("consent-given"), "aud": .string("x"),
                ]),
                "accepted": .object(["status": .string("2x"), "userPointer": .string("sub")]),
                "nonce": .string("md5"),
                "mockUrl": .string("ftp://mock"),
                "extra": .bool(true),
            ]))
        let text = problems.joined(separator: "\n")
        #expect(text.contains(#"$.knownFindings[1]: unknown case id "no-such-case""#))
        #expect(text.contains("$.cases[0]: expected a string"))
        #expect(text.contains("$.native.body: the template must send {{identityToken}}"))
        #expect(text.contains("$.native.body: unknown placeholder {{identityTokn}}"))
        #expect(text.contains("$.native.url"))
        #expect(text.contains("$.exchange.body: the template must send {{authorizationCode}}"))
        #expect(text.contains("$.web.start"))
        #expect(text.contains("$.web.accepted.finalUrlContains: expected a string"))
        #expect(text.contains("$.notifications.url"))
        #expect(text.contains("$.notifications.type"))
        #expect(text.contains("$.notifications.aud: unknown field"))
        #expect(text.contains("$.accepted.status"))
        #expect(text.contains("$.accepted.userPointer: a JSON pointer begins with /"))
        #expect(text.contains("$.nonce"))
        #expect(text.contains("$.mockUrl: not an absolute http(s) URL"))
        let (_, query) = Self.read(Self.with(["mockUrl": .string("http://mock:8080/?a=1")]))
        #expect(query == ["$.mockUrl: a base URL, without a query or a fragment"])
        #expect(text.contains("$.extra: unknown field"))
        let (_, none) = Self.read(.object(["clientId": .string("com.example.app")]))
        #expect(none.contains { $0.contains("name at least one path") })
    }

    @Test(
        "the notifications path: a path of its own, its app group and URL from the scenario unless named, each named field checked"
    )
    func notificationsPath() throws {
        let world = try Fixture.defaultWorld()
        let receiver = JSONValue.object(["url": .string("http://127.0.0.1:3000/apple")])
        let (config, problems) = Self.read(
            .object(["clientId": .string("com.example.app"), "notifications": receiver]))
        #expect(problems.isEmpty)
        let read = try #require(config)
        #expect(read.notifications?.type == .consentRevoked && read.native == nil)
        #expect(read.notifications?.accepted.status == "2xx", "a 2xx, not the config's acceptance of a sign-in")
        let checked = try ConformanceController.check(read, in: world)
        #expect(checked.notifications?.appGroupId == "example")
        #expect(checked.notifications?.url == "http://127.0.0.1:3000/apple")

        var named = read
        named.notifications?.appGroupId = "other"
        named.notifications?.type = .accountDelete
        #expect(try ConformanceController.check(named, in: world).notifications?.appGroupId == "other")

        var unknown = read
        unknown.notifications?.appGroupId = "nobody"
        do {
            _ = try ConformanceController.check(unknown, in: world)
            Issue.record("an unknown app group was taken")
        } catch {
            #expect(error.message.contains("$.notifications.appGroupId: no app group \"nobody\""))
        }
        // The run posts only to a URL the config names: the scenario's notificationUrl is not taken.
        let (_, missing) = Self.read(.object(["clientId": .string("com.example.app"), "notifications": .object([:])]))
        #expect(missing.contains { $0.hasPrefix("$.notifications.url") })
    }

    @Test("each forgery of the notification table is posted by exactly one case, and only on the notifications path")
    func notificationCases() {
        var forged: [NotificationForgery.Defect] = []
        for testCase in ConformanceCase.allCases {
            switch testCase.notification {
            case .valid: #expect(testCase == .okBaseline)
            case .forged(let defect):
                forged.append(defect)
                #expect(testCase.expected == .reject)
                #expect(!testCase.why(on: .notifications).contains("token"), "\(testCase)")
            case nil: #expect(!testCase.paths.contains(.notifications), "\(testCase)")
            }
            #expect((testCase.notification != nil) == testCase.paths.contains(.notifications))
        }
        #expect(
            forged.sorted { $0.rawValue < $1.rawValue }
                == NotificationForgery.Defect.allCases.sorted { $0.rawValue < $1.rawValue })
        #expect(ConformanceCase.eventsObject.paths == [.notifications])
        #expect(ConformanceCase.sigBad.weight(on: .notifications) == .must)
        #expect(ConformanceCase.eventsObject.weight(on: .notifications) == .should)
    }

    @Test("templates: quoted placeholders are escaped, bare ones are JSON values, form bodies percent-encode")
    func templates() {
        let values = ["identityToken": "a.b.c", "user": #"{"email":"a@b.c"}"#, "rawNonce": "q\"uote"]
        let json = ConformanceTemplate.fill(
            #"{"t":"{{identityToken}}","n":"{{rawNonce}}","u":{{user}},"r":{{rawNonce}},"m":{{email}}}"#,
            values: values, encoding: .json)
        #expect(json == #"{"t":"a.b.c","n":"q\"uote","u":{"email":"a@b.c"},"r":"q\"uote","m":null}"#)
        let form = ConformanceTemplate.fill(
            "t={{identityToken}}&n={{rawNonce}}&m={{email}}", values: values, encoding: .form)
        #expect(form == "t=a.b.c&n=q%22uote&m=")
        #expect(ConformanceTemplate.placeholders(in: "{{a}} x {{b}}") == ["a", "b"])
        #expect(ConformanceTemplate.Encoding(contentType: "application/json; charset=utf-8") == .json)
    }

    @Test("acceptance: status classes, body text, cookies and the signed-in user by JSON pointer")
    func acceptance() {
        let answer = ConformanceAcceptance.Answer(
            status: 200, headers: [("Set-Cookie", "session=abc; HttpOnly")], body: #"{"user":{"sub":"001.x.1"}}"#)
        #expect(ConformanceAcceptance.read(answer, by: .any2xx) == .init(accepted: true, user: nil))
        #expect(!ConformanceAcceptance.read(answer, by: .init(status: "3xx")).accepted)
        #expect(ConformanceAcceptance.read(answer, by: .init(status: "200", cookie: "session")).accepted)
        #expect(!ConformanceAcceptance.read(answer, by: .init(cookie: "sid")).accepted)
        #expect(!ConformanceAcceptance.read(answer, by: .init(bodyContains: "welcome")).accepted)
        #expect(
            ConformanceAcceptance.read(answer, by: .init(userPointer: "/user/sub"))
                == .init(accepted: true, user: "001.x.1"))
        #expect(!ConformanceAcceptance.read(answer, by: .init(userPointer: "/user/id")).accepted)
        #expect(ConformanceAcceptance.statusMatcher("6xx") == nil && ConformanceAcceptance.statusMatcher("99") == nil)
    }

    @Test("verdicts: a hole or an outage is a FAIL, hardening a WARNING, policies never FAIL, known findings")
    func verdicts() {
        func seen(_ accepted: Bool?, user: String?, pointer: Bool, status: Int) -> ConformanceJudge.Seen {
            .init(
                reading: accepted.map { .init(accepted: $0, user: user) }, error: accepted == nil ? "refused" : nil,
                tokenSub: "token-sub", claimedSub: "other-sub", status: accepted == nil ? nil : status,
                readsUser: pointer)
        }
        func verdict(
            _ testCase: ConformanceCase, on path: ConformancePath = .native, _ accepted: Bool?, user: String? = nil,
            pointer: Bool = true, status: Int = 200, known: Set<ConformanceCase> = []
        ) -> ConformanceReport.Verdict {
            ConformanceJudge.verdict(
                testCase, on: path, seen(accepted, user: user, pointer: pointer, status: status), knownFindings: known
            ).verdict
        }
        #expect(verdict(.okBaseline, true) == .pass)
        #expect(verdict(.okBaseline, false) == .fail)
        #expect(verdict(.algNone, false) == .pass)
        #expect(verdict(.algNone, true) == .fail)
        #expect(verdict(.algNone, true, known: [.algNone]) == .acceptedRisk)
        #expect(verdict(.sigBad, on: .exchange, true) == .warning)
        #expect(verdict(.iatStale, true) == .warning)
        #expect(verdict(.skewSmall, false) == .warning)
        #expect(verdict(.tokenReplay, true) == .warning)
        #expect(verdict(.nonceAbsentUnsupported, true) == .info)
        #expect(verdict(.nonceAbsentUnsupported, false) == .info)
        #expect(verdict(.subNotBound, true, user: "other-sub") == .fail)
        #expect(verdict(.subNotBound, true, user: "token-sub") == .pass)
        // A pointer at something else than the Apple sub (a database id) cannot judge it.
        #expect(verdict(.subNotBound, true, user: "db-id-17") == .skipped)
        // Without a pointer the run cannot tell whom an acceptance signed in; a refusal is right either way.
        #expect(verdict(.subNotBound, true, pointer: false) == .skipped)
        #expect(verdict(.subNotBound, false, pointer: false) == .pass)
        // A malformed credential refused with a 5xx looks like an outage; a 4xx is the answer.
        #expect(verdict(.jwsMalformed, false, status: 503) == .warning)
        #expect(verdict(.jwsMalformed, false, status: 400) == .pass)
        #expect(verdict(.kidUnknown, false, status: 500) == .pass)
        #expect(verdict(.kidUnknown, nil) == .inconclusive)
        for testCase in ConformanceCase.allCases {
            #expect(!testCase.why.isEmpty && !testCase.paths.isEmpty)
            if testCase.weight(on: .native) == .policy {
                #expect(verdict(testCase, true) != .fail && verdict(testCase, false) != .fail, "\(testCase)")
            }
        }
    }

    @Test("the tokens: edits as each case says, signatures as each case says")
    func tokens() throws {
        let ring = try SigningKeyRing.load(keysDirectory: Fixture.keysDirectory)
        let keys = ConformanceTokens.Keys(
            signing: ring.keys[0], published: ring.keys, stranger: try StrangerKey.key(), rotated: nil,
            attacker: try ConformanceTokens.Attacker(baseURL: "http://mock.test:8080/"))
        let context = ConformanceTokens.Context(
            now: 1_800_000_000, lifetime: 600, siblingClient: "com.otherstudio.app", rawNonce: "raw",
            nonceScheme: .sha256Hex)
        let hashed = ConformanceTokens.tokenNonce(raw: "raw", scheme: .sha256Hex) ?? ""
        #expect(hashed == Data(SHA256.hash(data: Data("raw".utf8))).lowercaseHex)
        let issued: [String: JSONValue] = [
            "iss": .string("https://appleid.apple.com"), "aud": .string("com.example.app"),
            "iat": .number(1_800_000_000), "exp": .number(1_800_000_600), "sub": .string("001.x.1"),
            "nonce": .string(hashed), "email_verified": .bool(true),
        ]
        func parts(_ testCase: ConformanceCase, _ variant: String = "") throws -> (
            header: [String: Any], claims: [String: Any], segments: [Substring]
        ) {
            let token = try ConformanceTokens.token(
                testCase, variant: variant, issued: issued, keys: keys, context: context)
            let segments = token.split(separator: ".", omittingEmptySubsequences: false)
            let header = (try? JSONSerialization.jsonObject(with: Data(base64URLEncoded: segments[0]) ?? Data()))
            let claims =
                segments.count > 1
                ? try? JSONSerialization.jsonObject(with: Data(base64URLEncoded: segments[1]) ?? Data()) : nil
            return (header as? [String: Any] ?? [:], claims as? [String: Any] ?? [:], segments)
        }
        #expect(try parts(.okBaseline).header["alg"] as? String == "RS256")
        #expect(try parts(.okAudArray).claims["aud"] as? [String] == ["com.example.app"])
        #expect(try parts(.okClaimsAsStrings).claims["email_verified"] as? String == "true")
        #expect(try parts(.boolStringFalse).claims["email_verified"] as? String == "false")
        #expect(try parts(.audOtherClient).claims["aud"] as? String == "com.otherstudio.app")
        #expect(try parts(.audExtraMember).claims["aud"] as? [String] == ["com.example.app", "com.attacker.app"])
        #expect(try parts(.expMissing).claims["exp"] == nil)
        #expect(try parts(.iatStale).claims["iat"] as? Double == Double(1_800_000_000 - 7 * 86_400))
        #expect(try parts(.nonceSchemeConfusion).claims["nonce"] as? String == "raw")
        #expect(try parts(.nonceAbsentSupported).claims["nonce"] == nil)
        #expect(try parts(.okRealUserStatus, "2").claims["real_user_status"] as? Double == 2)
        #expect(try parts(.okRealUserStatus, "absent").claims["real_user_status"] == nil)
        for variant in ["none", "None", "NONE"] {
            let token = try parts(.algNone, variant)
            #expect(token.header["alg"] as? String == variant && token.segments[2].isEmpty)
        }
        #expect(try parts(.sigMissing).segments[2].isEmpty)
        #expect(try parts(.algOtherAsymmetric, "PS256").header["alg"] as? String == "PS256")
        #expect(try parts(.keyUntrustedSameKid).header["kid"] as? String == keys.signing.kid)
        #expect(try parts(.kidUnknown).header["kid"] as? String == keys.stranger.kid)
        #expect(try parts(.kidAbsentMulti).header["kid"] == nil)
        #expect(try parts(.keyHeaderInjection, "jwk").header["jwk"] != nil)
        // Each header names the attacker's key, never a key of the JWKS, under the attacker's kid.
        #expect(ConformanceTokens.variants(of: .keyHeaderInjection, keys: keys) == ["jwk", "jku", "x5u", "x5c"])
        #expect(try parts(.keyHeaderInjection, "jwk").header["kid"] as? String == keys.stranger.kid)
        #expect(
            try parts(.keyHeaderInjection, "jku").header["jku"] as? String == "http://mock.test:8080/__attacker/jwks")
        // x5u names a PEM certificate (RFC 7515 §4.1.5), x5c carries it inline as base64 DER (§4.1.6).
        #expect(
            try parts(.keyHeaderInjection, "x5u").header["x5u"] as? String
                == "http://mock.test:8080/__attacker/certificate.pem")
        let chain = try #require(try parts(.keyHeaderInjection, "x5c").header["x5c"] as? [String])
        #expect(chain.count == 1)
        let certificate = try Certificate(derEncoded: Array(try #require(Data(base64Encoded: chain[0]))))
        #expect(certificate.publicKey == Certificate.PublicKey(keys.stranger.privateKey.publicKey))
        #expect(certificate.publicKey.isValidSignature(certificate.signature, for: certificate), "self-signed")
        #expect(certificate.publicKey != Certificate.PublicKey(keys.signing.privateKey.publicKey))
        // The calibration's credential is not a JWS at all.
        #expect(
            try ConformanceTokens.token(
                .jwsMalformed, variant: ConformanceTokens.calibrationVariant, issued: issued, keys: keys,
                context: context) == "not-a-jws")
        #expect(try parts(.jwsMalformed, "two-segments").segments.count == 2)
        #expect(try parts(.jwsMalformed, "four-segments").segments.count == 4)
        // HS256 keyed with the public key as a `.pem` file holds it verifies with that text.
        let hs = try parts(.algHS256PublicKey, "spki-pem").segments
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data((hs[0] + "." + hs[1]).utf8),
            using: SymmetricKey(data: Data(JWSSigning.publicKeyPEM(keys.signing).utf8)))
        #expect(Data(mac).base64URLEncoded == String(hs[2]))
        #expect(ConformanceTokens.variants(of: .okKidNotFirst, keys: keys).count == ring.keys.count - 1)
    }

    @Test("sub-not-bound needs another user of the scenario for the body to name")
    func subNotBoundNeedsAnotherUser() throws {
        let world = try Fixture.defaultWorld()
        #expect(ConformanceSession.subNotBoundSkip(in: world, user: "sam") == nil)
        var scenario = world.scenario
        scenario.users = scenario.users.filter { $0.key == "sam" }
        let alone = World(scenario: scenario)
        #expect(ConformanceSession.subNotBoundSkip(in: alone, user: "sam")?.contains("one user") == true)
    }

    @Test(
        "the attacker's JWKS and certificate are served outside the control plane: open with an admin token set"
    )
    func attackerMaterial() async throws {
        var configuration = Fixture.configuration()
        configuration.adminToken = "s3cret-token"
        let app = try await buildApplication(configuration: configuration, clock: .fixed(at: Fixture.start))
        let stranger = try StrangerKey.key()
        try await app.test(.router) { client in
            let jwks = try await client.execute(uri: "/__attacker/jwks", method: .get)
            #expect(jwks.status == .ok)
            let keys = try #require(jwks.json["keys"] as? [[String: Any]])
            #expect(keys.count == 1 && keys[0]["kid"] as? String == stranger.kid)
            let pem = try await client.execute(uri: "/__attacker/certificate.pem", method: .get)
            #expect(pem.status == .ok)
            #expect(pem.headers[.contentType] == "application/pem-certificate-chain")
            let text = String(buffer: pem.body)
            #expect(text.hasPrefix("-----BEGIN CERTIFICATE-----\n") && text.hasSuffix("-----END CERTIFICATE-----\n"))
            let certificate = try Certificate(pemEncoded: text)
            #expect(certificate.publicKey == Certificate.PublicKey(stranger.privateKey.publicKey))
            #expect(try Certificate(derEncoded: try AttackerMaterial.certificateDER()) == certificate)
            // The control plane still needs the token, and the attacker's key is in no JWKS of Apple's.
            #expect(try await client.execute(uri: "/__admin/conformance/runs", method: .get).status == .unauthorized)
            let apple = try await client.execute(uri: "/auth/keys", method: .get)
            #expect(!String(buffer: apple.body).contains(stranger.kid))
        }
    }

    @Test("JUnit: FAIL and INCONCLUSIVE are failures, SKIPPED skipped, text escaped")
    func junit() {
        func result(_ id: String, _ verdict: ConformanceReport.Verdict) -> ConformanceReport.CaseResult {
            .init(
                id: id, path: "native", variant: nil, verdict: verdict, expected: .reject, observed: "accepted",
                request: nil, response: nil, journal: [], why: "a <why> & more", note: "note \"quoted\"", curl: nil)
        }
        let report = ConformanceReport(
            id: "r1", state: "finished", namespace: "conformance-r1", startedAt: "", finishedAt: "",
            summary: [:],
            cases: [
                result("alg-none", .fail), result("sig-bad", .pass), result("xch-error", .skipped),
                result("kid-unknown", .inconclusive),
            ], error: nil)
        let xml = report.junit
        #expect(xml.contains(#"tests="4" failures="2" errors="0" skipped="1""#))
        #expect(xml.contains("a &lt;why&gt; &amp; more"))
        #expect(xml.contains("note &quot;quoted&quot;"))
        #expect(report.failed)
    }
}

/// `docs/backend-conformance.md`'s case tables hold what the code says of each case.
@Suite("Backend conformance: the docs' case tables")
struct ConformanceCaseTableTests {
    /// A weight as the tables spell it.
    private static func word(_ weight: ConformanceCase.Weight) -> String {
        switch weight {
        case .must: "must"
        case .should: "should"
        case .policy: "policy"
        }
    }

    /// The weight column: one word, or each weight with its paths when they differ.
    private static func weights(_ testCase: ConformanceCase, on paths: [ConformancePath]) -> String {
        var groups: [(word: String, paths: [String])] = []
        for path in paths {
            let word = word(testCase.weight(on: path))
            if let index = groups.firstIndex(where: { $0.word == word }) {
                groups[index].paths.append(path.rawValue)
            } else {
                groups.append((word, [path.rawValue]))
            }
        }
        if groups.count == 1 { return groups[0].word }
        return groups.map { "\($0.word) (\($0.paths.joined(separator: ", ")))" }.joined(separator: ", ")
    }

    /// Each case's row of the main table up to its why (a variants note may follow).
    static func caseRows() -> [String] {
        ConformanceCase.allCases.map { testCase in
            let paths = ConformancePath.allCases.filter(testCase.paths.contains)
            let cells = [
                "`\(testCase.rawValue)`", testCase.expected.rawValue, weights(testCase, on: paths),
                paths.map(\.rawValue).joined(separator: ", "), testCase.why,
            ]
            return "| " + cells.joined(separator: " | ")
        }
    }

    /// Each row of the notifications path's table.
    static func notificationRows() -> [String] {
        ConformanceCase.allCases.filter { $0.paths.contains(.notifications) }.map { testCase in
            let forgery: String =
                switch testCase.notification {
                case .forged(let defect): "`\(defect.rawValue)`"
                default: "none"
                }
            let cells = [
                "`\(testCase.rawValue)`", forgery, testCase.expected.rawValue,
                word(testCase.weight(on: .notifications)), testCase.why(on: .notifications),
            ]
            return "| " + cells.joined(separator: " | ") + " |"
        }
    }

    @Test("every case has its row: id, expected, weight per path, paths and why; the notifications path its own table")
    func tables() throws {
        let doc = try String(contentsOfFile: Fixture.root + "/docs/backend-conformance.md", encoding: .utf8)
        let lines = doc.split(separator: "\n").map(String.init)
        let missing = Self.caseRows().filter { row in !lines.contains { $0.hasPrefix(row) } }
        #expect(missing.isEmpty, "rows to put in the case table:\n\(missing.joined(separator: "\n"))")
        let notifications = Self.notificationRows().filter { !lines.contains($0) }
        #expect(
            notifications.isEmpty, "rows to put in the notifications table:\n\(notifications.joined(separator: "\n"))")
        // And no row of either table names a case the code lacks.
        for line in lines where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > 4, cells[1..<4].contains(where: { $0 == "accept" || $0 == "reject" }) else { continue }
            let id = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            #expect(ConformanceCase(rawValue: id) != nil, "\(id) is in a case table but is no case")
        }
    }
}
