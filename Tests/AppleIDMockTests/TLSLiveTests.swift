import AsyncHTTPClient
import Foundation
import HummingbirdTLS
import NIOCore
import NIOSSL
import Testing

/// `--tls` on the real binary: HTTPS with the bundled test CA (or your own files), trusted through
/// `keys/tls/ca.pem` only, and start-up refusals in one line for files that cannot serve.
@Suite("TLS as appleid.apple.com", .timeLimit(.minutes(2)), .tags(.live))
struct TLSLiveTests {
    static let tlsFolder = Fixture.keysDirectory + "/tls"

    /// Runs `body` with an HTTP client that trusts the bundled test CA and nothing else.
    static func withTrustingClient<T>(_ body: (HTTPClient) async throws -> T) async throws -> T {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(tlsFolder + "/ca.pem"))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
        do {
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try await client.shutdown()
            throw error
        }
    }

    static func get(_ client: HTTPClient, _ url: String, host: String? = nil, seconds: Int64 = 10) async throws -> (
        Int, String
    ) {
        var request = HTTPClientRequest(url: url)
        if let host { request.headers.replaceOrAdd(name: "Host", value: host) }
        let response = try await client.execute(request, timeout: .seconds(seconds))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }

    @Test("--tls: HTTPS for localhost and 127.0.0.1 through the bundled CA; discovery says https; untrusted otherwise")
    func bundledCertificate() async throws {
        try await ChildServers.with { children in
            let server = try await children.start(state: "memory", arguments: ["--tls"])
            try await Self.withTrustingClient { client in
                let (status, text) = try await Self.get(
                    client, "https://localhost:\(server.port)/.well-known/openid-configuration")
                #expect(status == 200)
                let discovery = try #require(
                    try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
                #expect(discovery["issuer"] as? String == "https://appleid.apple.com")
                #expect(discovery["token_endpoint"] as? String == "https://localhost:\(server.port)/auth/token")
                #expect(try await Self.get(client, "https://127.0.0.1:\(server.port)/health").0 == 200)
                // A hosts entry makes the Host appleid.apple.com; over TLS the control plane accepts it.
                let users = try await Self.get(
                    client, "https://127.0.0.1:\(server.port)/__admin/users", host: "appleid.apple.com")
                #expect(users.0 == 200, "\(users)")
            }
            // Without the test CA, the public roots refuse the certificate.
            await #expect(throws: (any Error).self) {
                _ = try await Self.get(HTTPClient.shared, "https://localhost:\(server.port)/health", seconds: 3)
            }
            // Plain HTTP to the TLS port gets no answer.
            await #expect(throws: (any Error).self) {
                _ = try await Self.get(HTTPClient.shared, "http://127.0.0.1:\(server.port)/health", seconds: 3)
            }
        }
    }

    @Test("only TLS 1.2 and 1.3, and in 1.2 only forward-secret AEAD suites (no static RSA, no CBC-SHA1)")
    func protocolsAndSuites() async throws {
        try await ChildServers.with { children in
            let server = try await children.start(state: "memory", arguments: ["--tls"])
            let caRoots = NIOSSLTrustRoots.certificates(try NIOSSLCertificate.fromPEMFile(Self.tlsFolder + "/ca.pem"))
            /// Whether a handshake with these client limits succeeds.
            func handshakes(
                min: TLSVersion = .tlsv1, max: TLSVersion? = nil, suites: [NIOTLSCipher]? = nil
            ) async -> Bool {
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.trustRoots = caRoots
                tls.minimumTLSVersion = min
                tls.maximumTLSVersion = max
                if let suites { tls.cipherSuiteValues = suites }
                let client = HTTPClient(
                    eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
                let status = try? await Self.get(client, "https://localhost:\(server.port)/health", seconds: 5).0
                try? await client.shutdown()
                return status == 200
            }
            #expect(await handshakes(min: .tlsv13), "TLS 1.3")
            #expect(await handshakes(max: .tlsv12, suites: [.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]), "ECDHE-RSA-GCM")
            #expect(await handshakes(max: .tlsv1) == false, "TLS 1.0")
            #expect(await handshakes(max: .tlsv11) == false, "TLS 1.1")
            #expect(await handshakes(max: .tlsv12, suites: [.TLS_RSA_WITH_AES_128_GCM_SHA256]) == false, "static RSA")
            #expect(await handshakes(max: .tlsv12, suites: [.TLS_RSA_WITH_AES_128_CBC_SHA]) == false, "static RSA, CBC")
            #expect(
                await handshakes(max: .tlsv12, suites: [.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA]) == false, "CBC-SHA1")
        }
    }

    @Test("the certificate verifies for the name appleid.apple.com with ca.pem (Python's ssl, as a backend)")
    func appleNameVerifies() async throws {
        try await ChildServers.with { children in
            let server = try await children.start(state: "memory", arguments: ["--tls"])
            let script = """
                import socket, ssl, sys
                context = ssl.create_default_context(cafile=sys.argv[2])
                with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10) as raw:
                    with context.wrap_socket(raw, server_hostname="appleid.apple.com") as tls:
                        tls.sendall(b"GET /health HTTP/1.1\\r\\nHost: appleid.apple.com\\r\\nConnection: close\\r\\n\\r\\n")
                        answer = b""
                        while chunk := tls.recv(4096):
                            answer += chunk
                print(tls.version(), answer.split(b"\\r\\n")[0].decode())
                """
            let (status, output) = try await PythonScript.run(
                ["-c", script, String(server.port), Self.tlsFolder + "/ca.pem"])
            #expect(status == 0, "\(output)")
            #expect(output.contains("HTTP/1.1 200"), "\(output)")
        }
    }

    @Test("your own files: --tls-cert/--tls-key, and the environment variables")
    func ownFiles() async throws {
        try await ChildServers.with { children in
            let flags = try await children.start(
                state: "memory",
                arguments: [
                    "--tls-cert", Self.tlsFolder + "/appleid.apple.com.pem", "--tls-key",
                    Self.tlsFolder + "/appleid.apple.com-key.pem",
                ])
            let (status, _) = try await Self.withTrustingClient { client in
                try await Self.get(client, "https://localhost:\(flags.port)/health")
            }
            #expect(status == 200)
        }
        try await ChildServers.with { children in
            let variable = try await children.run(
                ChildServers.serveArguments(state: nil) + ["--idle-timeout", "0.1"],
                environment: ["APPLE_ID_MOCK_TLS": "maybe"])
            #expect(variable.ending != .exited(0))
            #expect(
                variable.stderr.contains(
                    #"APPLE_ID_MOCK_TLS must be 1, true, yes, on, 0, false, no or off; found "maybe""#),
                "\(variable.stderr)")
        }
    }

    @Test("files that cannot serve are refused at start-up in one line naming the file")
    func refusals() async throws {
        try await ChildServers.with { children in
            let cert = Self.tlsFolder + "/appleid.apple.com.pem"
            let missing = try await children.run(
                ChildServers.serveArguments(state: nil) + ["--tls-cert", "/nonexistent/c.pem", "--tls-key", cert])
            await StartupErrorLiveTests.expectRefusal(
                missing, naming: "/nonexistent/c.pem", cause: "no such file", children: children)

            let notPEM = try await children.run(
                ChildServers.serveArguments(state: nil) + [
                    "--tls-cert", Fixture.root + "/README.md", "--tls-key", cert,
                ])
            await StartupErrorLiveTests.expectRefusal(
                notPEM, naming: "README.md", cause: "not a PEM certificate chain", children: children)

            let wrongKey = try await children.run(
                ChildServers.serveArguments(state: nil) + [
                    "--tls-cert", cert, "--tls-key", Fixture.keysDirectory + "/signing/Mk7pQ2xR9a.pem",
                ])
            await StartupErrorLiveTests.expectRefusal(
                wrongKey, naming: "Mk7pQ2xR9a.pem", cause: "does not match", children: children)

            let alone = try await children.run(ChildServers.serveArguments(state: nil) + ["--tls-cert", cert])
            #expect(alone.ending != .exited(0))
            #expect(alone.stderr.contains("--tls-cert needs the certificate's private key too"), "\(alone.stderr)")
            let fromVariable = try await children.run(
                ChildServers.serveArguments(state: nil), environment: ["APPLE_ID_MOCK_TLS_KEY": cert])
            #expect(
                fromVariable.stderr.contains("APPLE_ID_MOCK_TLS_KEY needs the certificate chain"),
                "\(fromVariable.stderr)")
        }
    }
}
