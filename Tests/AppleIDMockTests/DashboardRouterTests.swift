import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// The QA dashboard as the server delivers it: its files from memory with a strict Content
/// Security Policy, open without the admin token (the page asks for it), and `GET /__admin/users`,
/// the view of users and their state per app group that the page shows.
@Suite("Dashboard")
struct DashboardRouterTests {
    @Test("GET /__admin/ serves the page and its modules, same-origin only, revalidated by ETag")
    func page() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            for uri in ["/__admin/", "/ns/team-a/__admin/"] {
                let page = try await client.execute(uri: uri, method: .get)
                #expect(page.status == .ok)
                #expect(page.headers[.contentType] == "text/html; charset=utf-8")
                // Relative: under a namespace's prefix the page's files come from under it too.
                #expect(page.text.contains(#"<script type="module" src="dashboard/main.js">"#))
                let policy = try #require(page.headers[.contentSecurityPolicy])
                #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'"))
                #expect(policy.contains("frame-ancestors 'none'"))
                #expect(page.headers[.xContentTypeOptions] == "nosniff")
            }
            // Without its slash the page's relative files would miss: it is sent to its folder.
            for (uri, folder) in [
                ("/__admin", "/__admin/"), ("/ns/team-a/__admin?x=1", "/ns/team-a/__admin/?x=1"),
            ] {
                let moved = try await client.execute(uri: uri, method: .get)
                #expect(moved.status == .permanentRedirect)
                #expect(moved.headers[.location] == folder)
            }
            #expect(try await client.execute(uri: "/ns/team-a/__admin/dashboard/main.js", method: .get).status == .ok)
            // Every module the page imports is served, as JavaScript; no file outside is reachable.
            let page = try await client.execute(uri: "/__admin/", method: .get).text
            let main = try await client.execute(uri: "/__admin/dashboard/main.js", method: .get)
            #expect(main.headers[.contentType] == "text/javascript; charset=utf-8")
            let imports = main.text.matches(of: /from "\.\/([a-z]+\.js)"/).map { String($0.output.1) }
            #expect(imports.count >= 8)
            for module in imports {
                #expect(try await client.execute(uri: "/__admin/dashboard/\(module)", method: .get).status == .ok)
            }
            for asset in page.matches(of: /href="dashboard\/([a-z.]+)"/).map({ String($0.output.1) }) {
                #expect(try await client.execute(uri: "/__admin/dashboard/\(asset)", method: .get).status == .ok)
            }
            for missing in ["nope.js", "..%2Fopenapi.json", "%2E%2E"] {
                #expect(
                    try await client.execute(uri: "/__admin/dashboard/\(missing)", method: .get).status == .notFound)
            }
            // Revalidation: the same ETag answers 304 without a body.
            let etag = try #require(main.headers[.eTag])
            let again = try await client.execute(
                uri: "/__admin/dashboard/main.js", method: .get, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)
        }
    }

    @Test("with an admin token the page loads without it, while everything it calls needs it")
    func pageWithAdminToken() async throws {
        var configuration = Fixture.configuration()
        configuration.adminToken = "qa-token"
        let app = try await buildApplication(configuration: configuration, clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            #expect(try await client.execute(uri: "/__admin/", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/__admin/dashboard/api.js", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/__admin/users", method: .get).status == .unauthorized)
            #expect(try await client.execute(uri: "/__admin/openapi.json", method: .get).status == .unauthorized)
            // Only reading is open: anything else on the page's paths still needs the token.
            #expect(try await client.execute(uri: "/__admin/", method: .post).status == .unauthorized)
            let users = try await client.execute(
                uri: "/__admin/users", method: .get, headers: [.authorization: "Bearer qa-token"])
            #expect(users.status == .ok)
        }
    }

    @Test("GET /__admin/users: consent, first authorization, credential state and relay per app group")
    func users() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            func state(_ user: String, _ group: String) async throws -> [String: Any] {
                let users = try #require(
                    try await client.execute(uri: "/__admin/users", method: .get).json["users"] as? [[String: Any]])
                let entry = try #require(users.first { $0["key"] as? String == user })
                let groups = try #require(entry["appGroups"] as? [[String: Any]])
                return try #require(groups.first { $0["appGroupId"] as? String == group })
            }
            var sam = try await state("sam", "example")
            #expect(sam["credentialState"] as? String == "notFound")
            #expect(sam["firstAuthorization"] as? Bool == true)
            #expect(sam["consent"] == nil)

            _ = try await client.signIn("sam")
            sam = try await state("sam", "example")
            #expect(sam["credentialState"] as? String == "authorized")
            #expect(sam["firstAuthorization"] as? Bool == false)
            let consent = try #require(sam["consent"] as? [String: Any])
            #expect(consent["status"] as? String == "authorized")
            #expect(consent["scopes"] as? [String] == ["email", "name"])
            #expect(consent["hidesEmail"] as? Bool == true)
            #expect(sam["relayForwarding"] as? Bool == true)

            let off = try await client.postJSON(
                "/__admin/events", #"{"type":"email-disabled","user":"sam","appGroup":"example"}"#)
            #expect(off.status == .ok)
            #expect(try await state("sam", "example")["relayForwarding"] as? Bool == false)

            #expect(
                try await client.postJSON("/__admin/events", #"{"type":"account-delete","user":"sam"}"#).status == .ok)
            sam = try await state("sam", "example")
            #expect(sam["credentialState"] as? String == "revoked")
            #expect(sam["firstAuthorization"] as? Bool == false, "a deleted account cannot sign in again")
            #expect((sam["consent"] as? [String: Any])?["status"] as? String == "revoked")
            let users = try #require(
                try await client.execute(uri: "/__admin/users", method: .get).json["users"] as? [[String: Any]])
            #expect(users.first { $0["key"] as? String == "sam" }?["accountDeleted"] as? Bool == true)
            #expect(users.first { $0["key"] as? String == "maria" }?["accountDeleted"] as? Bool == false)
        }
    }

    @Test("deleting an account revokes the app groups the user authorized; the others stay notFound, unnotified")
    func deleteLeavesUnauthorizedGroupsNotFound() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            func states(_ user: String) async throws -> [String: String] {
                let users = try #require(
                    try await client.execute(uri: "/__admin/users", method: .get).json["users"] as? [[String: Any]])
                let entry = try #require(users.first { $0["key"] as? String == user })
                let groups = try #require(entry["appGroups"] as? [[String: Any]])
                return Dictionary(
                    uniqueKeysWithValues: groups.compactMap { group in
                        (group["appGroupId"] as? String).map { ($0, group["credentialState"] as? String ?? "") }
                    })
            }
            _ = try await client.signIn("sam")
            let before = try await states("sam")
            #expect(before.count >= 2, "the default scenario has a second app group")
            let delete = try await client.postJSON("/__admin/events", #"{"type":"account-delete","user":"sam"}"#)
            #expect(delete.status == .ok)
            let after = try await states("sam")
            #expect(after["example"] == "revoked")
            for (group, state) in after where group != "example" {
                #expect(state == "notFound", "\(group) was never authorized")
            }
            // A native client of a group never authorized: still notFound for Apple's API too.
            let others = after.keys.filter { $0 != "example" }
            #expect(!others.isEmpty)
            let notifications = try #require(
                try await client.execute(uri: "/__admin/notifications", method: .get).json["notifications"]
                    as? [[String: Any]])
            #expect(notifications.map { $0["appGroupId"] as? String } == ["example"])
            // Someone who never signed in anywhere: every group stays notFound.
            #expect(
                try await client.postJSON("/__admin/events", #"{"type":"account-delete","user":"alex"}"#).status == .ok)
            #expect(try await states("alex").values.allSatisfy { $0 == "notFound" })
        }
    }
}
