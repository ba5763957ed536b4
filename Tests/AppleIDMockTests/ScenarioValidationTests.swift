import Foundation
import Testing

@testable import AppleIDMock

/// Scenario files are checked on load, with the file, JSON path and reason of every problem.
@Suite("Scenario validation")
struct ScenarioValidationTests {
    static let publicKey = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEh+SEdN2lXrx5gOFzabEbYf1F/spy
        8Q3Api/1NxFiAFH7WUe7aOMA7po3VNfl1d/JeQ9WZRQegynyES9gQzkccw==
        -----END PUBLIC KEY-----
        """

    /// A minimal valid scenario, as a JSON object to mutate.
    static func valid() -> [String: Any] {
        [
            "teams": [["teamId": "DEF123GHIJ", "developerKeys": [["keyId": "ABC123DEFG", "publicKey": publicKey]]]],
            "appGroups": [
                [
                    "id": "g", "teamId": "DEF123GHIJ", "primaryBundleId": "com.x.app",
                    "servicesIds": [["identifier": "com.x.web", "redirectUris": ["https://x.example/cb"]]],
                ]
            ],
            "users": [["key": "u1", "email": "u1@example.org"]],
        ]
    }

    static func problems(_ object: [String: Any]) throws -> [ScenarioError.Problem] {
        let data = try JSONSerialization.data(withJSONObject: object)
        do {
            _ = try ScenarioLoader.loadData(data, name: "t")
            return []
        } catch {
            return error.problems
        }
    }

    @Test("the bundled scenarios load and cover the default cases")
    func bundledScenariosLoad() throws {
        let scenarios = try ScenarioLoader.loadDirectory(Fixture.scenariosDirectory)
        let scenario = try #require(scenarios["default"])
        #expect(scenario.users.contains { !$0.hideEmail && !$0.email.isEmpty })
        #expect(scenario.users.contains { $0.hideEmail })
        #expect(Set(scenario.users.map(\.realUserStatus)) == [0, 1, 2])
        #expect(scenario.appGroups.contains { !$0.servicesIds.isEmpty })
        let keyId = try #require(scenario.teams.first?.developerKeys.first?.keyId)
        #expect(
            FileManager.default.fileExists(
                atPath: ClientSecretFactory.privateKeyPath(keyId: keyId, keysDirectory: Fixture.keysDirectory)))
    }

    @Test("a valid minimal scenario has no problems")
    func minimalIsValid() throws {
        #expect(try Self.problems(Self.valid()).isEmpty)
    }

    @Test("an unknown field is named with its path")
    func unknownField() throws {
        var object = Self.valid()
        object["users"] = [["key": "u1", "email": "u1@example.org", "hideMail": true]]
        let problems = try Self.problems(object)
        #expect(problems.count == 1)
        #expect(problems.first?.path == "$.users[0].hideMail")
        #expect(problems.first?.reason.hasPrefix("unknown field") == true)
        #expect(problems.first?.file == "request body")
    }

    @Test("a wrong type names the expected and found types")
    func wrongType() throws {
        var object = Self.valid()
        object["users"] = [["key": "u1", "email": "u1@example.org", "realUserStatus": "2"]]
        let problem = try #require(try Self.problems(object).first)
        #expect(problem.path == "$.users[0].realUserStatus")
        #expect(problem.reason == "expected a whole number, found a string")
    }

    @Test("out-of-range realUserStatus is refused")
    func outOfRange() throws {
        var object = Self.valid()
        object["users"] = [["key": "u1", "email": "u1@example.org", "realUserStatus": 3]]
        #expect(try Self.problems(object).first?.reason == "3 is out of range 0...2")
    }

    @Test("duplicate ids are refused with the first place named")
    func duplicates() throws {
        var object = Self.valid()
        object["users"] = [["key": "u1", "email": "a@example.org"], ["key": "u1", "email": "b@example.org"]]
        let problem = try #require(try Self.problems(object).first)
        #expect(problem.path == "$.users[1].key")
        #expect(problem.reason == "duplicate user key \"u1\" (first at $.users[0].key)")
    }

    @Test("an app group of an unknown team is refused")
    func unknownTeam() throws {
        var object = Self.valid()
        var groups = object["appGroups"] as! [[String: Any]]
        groups[0]["teamId"] = "NOPE000000"
        object["appGroups"] = groups
        let problem = try #require(try Self.problems(object).first)
        #expect(problem.path == "$.appGroups[0].teamId")
        #expect(problem.reason.hasPrefix("unknown team \"NOPE000000\""))
    }

    @Test("a malformed developer key is refused")
    func malformedKey() throws {
        var object = Self.valid()
        object["teams"] = [
            ["teamId": "DEF123GHIJ", "developerKeys": [["keyId": "ABC123DEFG", "publicKey": "not a key"]]]
        ]
        let problem = try #require(try Self.problems(object).first)
        #expect(problem.path == "$.teams[0].developerKeys[0].publicKey")
        #expect(problem.reason.hasPrefix("malformed key"))
    }

    @Test("missing fields, bad ids and bad URLs are all reported at once")
    func severalProblems() throws {
        let object: [String: Any] = [
            "teams": [["teamId": "lowercase1", "developerKeys": []]],
            "appGroups": [
                [
                    "id": "g", "teamId": "lowercase1", "primaryBundleId": "com.x.app",
                    "notificationUrl": "http://127.0.0.1:99999/n",
                    "servicesIds": [
                        ["identifier": "com.x.web", "redirectUris": ["ftp://x", "https://x.example/cb#frag"]]
                    ],
                ]
            ],
            "users": [["email": "not-an-email"]],
        ]
        let problems = try Self.problems(object)
        let paths = Set(problems.map(\.path))
        #expect(paths.contains("$.teams[0].teamId"))
        #expect(paths.contains("$.appGroups[0].servicesIds[0].redirectUris[0]"))
        #expect(paths.contains("$.appGroups[0].servicesIds[0].redirectUris[1]"))
        #expect(paths.contains("$.users[0].key"))
        #expect(paths.contains("$.users[0].email"))
        // A port out of range trapped in the HTTP client at the first delivery; now it is named here.
        #expect(
            problems.contains {
                $0.path == "$.appGroups[0].notificationUrl" && $0.reason.contains("port 99999 is outside 1...65535")
            })
    }

    @Test("bad settings are named")
    func badSettings() throws {
        var object = Self.valid()
        object["settings"] = ["booleanClaimStyle": "yes", "idTokenLifetimeSeconds": 0]
        let problems = try Self.problems(object)
        #expect(problems.map(\.path).sorted() == ["$.settings.booleanClaimStyle", "$.settings.idTokenLifetimeSeconds"])
    }

    @Test("scheduled events are checked: type, user, app group and time")
    func events() throws {
        var object = Self.valid()
        object["events"] = [
            ["type": "account-delete", "user": "u1"],
            ["type": "consent-revoked", "user": "u1", "appGroup": "com.x.web", "at": "2030-01-01T00:00:00Z"],
            ["type": "email-disabled", "user": "ghost", "appGroup": "g"],
            ["type": "consent-revoked", "user": "u1"],
            ["type": "account-delete", "user": "u1", "appGroup": "g"],
            ["type": "email-enabled", "user": "u1", "appGroup": "g", "at": "tomorrow"],
            ["type": "account-deleted", "user": "u1"],
        ]
        let problems = try Self.problems(object)
        #expect(
            problems.map(\.path) == [
                "$.events[2].user", "$.events[3].appGroup", "$.events[4].appGroup", "$.events[5].at",
                "$.events[6].type",
            ])
        object["events"] = [["type": "consent-revoked", "user": "u1", "appGroup": "com.x.web", "at": 1_900_000_000]]
        let scenario = try ScenarioLoader.loadData(try JSONSerialization.data(withJSONObject: object), name: "t")
        #expect(scenario.events.first?.event.appGroupId == "g")
        #expect(scenario.events.first?.at == Date(timeIntervalSince1970: 1_900_000_000))
        // A day the month does not have is named, not rolled over into the next month.
        object["events"] = [
            ["type": "consent-revoked", "user": "u1", "appGroup": "com.x.web", "at": "2030-02-30T00:00:00Z"],
            ["type": "consent-revoked", "user": "u1", "appGroup": "com.x.web", "at": "2030-03-01T08:00:00+08:00"],
        ]
        let dayProblems = try Self.problems(object)
        #expect(dayProblems.map(\.path) == ["$.events[0].at"])
        #expect(dayProblems.first?.reason.contains("ISO 8601") == true)
        object["events"] = [(object["events"] as! [[String: Any]])[1]]
        let offset = try ScenarioLoader.loadData(try JSONSerialization.data(withJSONObject: object), name: "t")
        #expect(offset.events.first?.at == Date(timeIntervalSince1970: 1_898_553_600))
    }

    @Test("invalid JSON is reported as such")
    func invalidJSON() throws {
        do {
            _ = try ScenarioLoader.loadData(Data("{\"teams\": [".utf8), name: "t")
            Issue.record("expected an error")
        } catch {
            #expect(error.problems.first?.reason.hasPrefix("not valid JSON") == true)
        }
    }

    /// The one problem of scenario text `text`.
    static func problem(_ text: String, bytes: [UInt8] = []) -> ScenarioError.Problem? {
        do {
            _ = try ScenarioLoader.loadData(Data(text.utf8) + Data(bytes), name: "t")
            return nil
        } catch {
            return error.problems.first
        }
    }

    @Test("a member name given twice is refused with its path and both places, at any depth")
    func duplicateMemberNames() throws {
        let top = Self.problem("{\n  \"description\": \"a\",\n  \"description\": \"b\"\n}")
        #expect(top?.path == "$.description")
        #expect(
            top?.reason
                == "member \"description\" appears twice in one object (line 3, column 3; first at line 2, column 3); remove one"
        )
        // Deep inside: a user's key, in an otherwise valid file.
        var text = String(
            decoding: try JSONSerialization.data(withJSONObject: Self.valid(), options: [.sortedKeys]), as: UTF8.self)
        text = text.replacingOccurrences(of: #""key":"u1""#, with: #""key":"u1","key":"u2""#)
        let deep = Self.problem(text)
        #expect(deep?.path == "$.users[0].key", "\(String(describing: deep))")
        #expect(deep?.reason.contains("line 1, column") == true)
        // The same name in two objects is no duplicate (here the inner one is an unknown setting).
        let twoObjects = Self.problem(#"{"description": "x", "settings": {"description": 1}}"#)
        #expect(twoObjects?.reason.contains("appears twice") == false)
    }

    @Test("JSON syntax errors and invalid UTF-8 name the line and column")
    func syntaxPositions() {
        let missingComma = Self.problem("{\n  \"description\": \"a\"\n  \"users\": []\n}")
        #expect(
            missingComma?.reason.hasPrefix("not valid JSON: line 3, column 3:") == true,
            "\(String(describing: missingComma))")
        let truncated = Self.problem("{\"teams\": [")
        #expect(
            truncated?.reason.hasPrefix("not valid JSON: line 1, column 12:") == true,
            "\(String(describing: truncated))")
        let badByte = Self.problem("{\n  \"description\": \"caf", bytes: [0xE9, 0x22, 0x7D])
        #expect(
            badByte?.reason == "not valid JSON: line 2, column 22: invalid UTF-8 (byte 0xE9)",
            "\(String(describing: badByte))")
        let trailing = Self.problem("{\"description\": \"é\", }")
        #expect(
            trailing?.reason.hasPrefix("not valid JSON: line 1, column 22:") == true, "\(String(describing: trailing))")
    }

    @Test("a directory with a bad file names the file; the server refuses to start")
    func badDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(
            atPath: Fixture.scenariosDirectory + "/default.json",
            toPath: directory.appendingPathComponent("default.json").path)
        try Data(#"{"teams": [], "appGroups": [], "users": [], "extra": 1}"#.utf8)
            .write(to: directory.appendingPathComponent("broken.json"))
        do {
            _ = try ScenarioLoader.loadDirectory(directory.path)
            Issue.record("expected an error")
        } catch {
            #expect(error.problems.count == 1)
            #expect(error.problems.first?.file.hasSuffix("broken.json") == true)
            #expect(error.problems.first?.path == "$.extra")
        }
        var configuration = Fixture.configuration()
        configuration.scenariosDirectory = directory.path
        await #expect(throws: ScenarioError.self) {
            _ = try await buildApplication(configuration: configuration)
        }
    }
}
