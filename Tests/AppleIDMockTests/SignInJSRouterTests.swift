import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import AppleIDMock

/// The mock's Sign in with Apple JS at Apple's CDN path, and its typings beside it.
@Suite("Sign in with Apple JS route")
struct SignInJSRouterTests {
    static let script = "/appleauth/static/jsapi/appleid/1/en_US/appleid.auth.js"
    static let typings = "/appleauth/static/jsapi/appleid/1/en_US/appleid.auth.d.ts"

    @Test("the script is served as JavaScript, cacheable, with an ETag, from any origin")
    func script() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let response = try await client.execute(uri: Self.script, method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(response.headers[.cacheControl] == "public, max-age=300")
            #expect(response.headers[.accessControlAllowOrigin] == "*")
            #expect(response.headers[.xContentTypeOptions] == "nosniff")
            let etag = try #require(response.headers[.eTag])
            // The API of Apple's SDK, and the popup contract.
            for needle in [
                "AppleID.auth", "init: init", "renderButton: renderButton", "AppleIDSignInOnSuccess",
                "AppleIDSignInOnFailure", "popup_closed_by_user", "popup_blocked_by_browser",
                "user_trigger_new_signin_flow", "web_message", "oauthDone", "appleid-signin-client-id",
                "appleid.cdn-apple.com", "event.origin !== authOrigin",
            ] {
                #expect(response.text.contains(needle), "appleid.auth.js lacks \(needle)")
            }

            let again = try await client.execute(uri: Self.script, method: .get, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)

            let head = try await client.execute(uri: Self.script, method: .head)
            #expect(head.status == .ok && head.body.readableBytes == 0)
            #expect(head.headers[.contentType] == "text/javascript; charset=utf-8")
        }
    }

    @Test("the typings are served beside it; other locales give the same files; anything else is a 404")
    func typingsAndMisses() async throws {
        let app = try await Fixture.application(clock: .fixed(at: Fixture.start))
        try await app.test(.router) { client in
            let typings = try await client.execute(uri: Self.typings, method: .get)
            #expect(typings.status == .ok)
            #expect(typings.headers[.contentType] == "application/typescript; charset=utf-8")
            #expect(typings.text.contains("declare namespace AppleID"))
            #expect(typings.text.contains("signIn(signInConfig?: ClientConfigI): Promise<SignInResponseI>"))

            let french = try await client.execute(
                uri: "/appleauth/static/jsapi/appleid/1/fr_FR/appleid.auth.js", method: .get)
            #expect(french.status == .ok)
            for miss in [
                "/appleauth/static/jsapi/appleid/1/en_US/other.js", "/appleauth/static/jsapi/appleid/1/../x.js",
                "/appleauth/static/jsapi/appleid/1/english/appleid.auth.js",
            ] {
                let response = try await client.execute(uri: miss, method: .get)
                #expect(response.status == .notFound, "\(miss)")
            }
        }
    }
}
