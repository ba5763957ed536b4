import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A Python backend that keeps Apple's URLs (`Tests/relying-party/apple_default_urls.py`: PyJWT's
/// `PyJWKClient("https://appleid.apple.com/auth/keys")`, the token exchange at
/// `https://appleid.apple.com/auth/token`) signs in against the mock, reached only by name
/// resolution and trusting only `keys/tls/ca.pem`. It needs `appleid.apple.com` to resolve to this
/// machine and port 443: `.ci/run` adds a hosts entry (and takes it out again) and sets
/// `APPLE_ID_MOCK_REQUIRE_APPLE_ALIAS=1`, so that CI fails instead of skipping.
@Suite("Apple's default URLs, reached by name", .timeLimit(.minutes(2)), .tags(.live))
struct AppleDefaultURLsLiveTests {
    static let script = Fixture.root + "/Tests/relying-party/apple_default_urls.py"
    static let required = ProcessInfo.processInfo.environment["APPLE_ID_MOCK_REQUIRE_APPLE_ALIAS"] == "1"
    static let shouldRun =
        required || (resolvesHere("appleid.apple.com") && PythonScript.canImport(["jwt", "requests", "certifi"]))

    /// Whether every address `name` resolves to is this machine's (a hosts entry such as
    /// `127.0.0.1 appleid.apple.com`).
    static func resolvesHere(_ name: String) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else { return false }
        defer { freeaddrinfo(list) }
        var found = false
        for entry in sequence(first: first, next: { $0.pointee.ai_next }) {
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard
                getnameinfo(
                    entry.pointee.ai_addr, entry.pointee.ai_addrlen, &host, socklen_t(host.count), nil, 0,
                    NI_NUMERICHOST) == 0
            else { return false }
            let address = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard address.hasPrefix("127.") || address == "::1" else { return false }
            found = true
        }
        return found
    }

    @Test(
        "sign-in, refresh and revoke at https://appleid.apple.com with nothing in the client changed",
        .enabled(if: shouldRun))
    func pythonBackendWithAppleURLs() async throws {
        #expect(
            Self.resolvesHere("appleid.apple.com"),
            "appleid.apple.com must resolve to 127.0.0.1 here (a hosts entry; .ci/run adds one)")
        try await ChildServers.with { children in
            let server = try await children.start(
                state: "memory", arguments: ["--tls", "--port", "443", "--public-url", "https://appleid.apple.com"])
            #expect(server.port == 443)
            let ca = Fixture.keysDirectory + "/tls/ca.pem"
            let (status, output) = try await PythonScript.run(
                [Self.script], environment: ["SSL_CERT_FILE": ca, "REQUESTS_CA_BUNDLE": ca])
            #expect(status == 0, "apple_default_urls.py:\n\(output)")
            #expect(output.contains(" passed, 0 failed"), "\(output)")
        }
    }
}
