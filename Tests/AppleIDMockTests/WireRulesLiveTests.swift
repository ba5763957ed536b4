import Foundation
import Testing

/// Rules that only show on the wire: a chunked body on a control-plane route that takes none, and
/// `Expect: 100-continue` with a declared body over the route's limit. On the real binary: raw
/// sockets block their thread, which an in-process server would need.
@Suite("Wire rules", .timeLimit(.minutes(1)), .tags(.live))
struct WireRulesLiveTests {
    /// The status code of an HTTP/1.1 answer's first line.
    static func status(_ text: String) -> Int? {
        text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) }
    }

    @Test("a chunked body that is not JSON is refused (415) on routes that take none; an empty one passes")
    func chunkedContentType() async throws {
        try await ChildServers.with { children in
            let port = try await children.start(state: "memory").port
            func send(_ contentType: String?, chunks: [String]) throws -> String {
                let connection = try RawConnection(port: port)
                let type = contentType.map { "Content-Type: \($0)\r\n" } ?? ""
                let body = chunks.map { "\(String($0.utf8.count, radix: 16))\r\n\($0)\r\n" }.joined() + "0\r\n\r\n"
                connection.send(
                    "POST /__admin/reset HTTP/1.1\r\nHost: 127.0.0.1\r\n\(type)Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n\(body)"
                )
                return connection.read().text
            }
            let plain = try send("text/plain", chunks: ["reset", " please"])
            #expect(Self.status(plain) == 415, "\(plain)")
            #expect(plain.contains("unsupported_media_type"))
            let untyped = try send(nil, chunks: ["x"])
            #expect(Self.status(untyped) == 415, "\(untyped)")
            #expect(Self.status(try send("text/plain", chunks: [])) == 200, "an empty chunked body is no body")
            #expect(Self.status(try send("application/json", chunks: ["{}"])) == 200)
            // A chunked JSON body on a route that reads one still works, and a chunked form to Apple's endpoints too.
            let connection = try RawConnection(port: port)
            let json = #"{"advanceSeconds":1}"#
            connection.send(
                "POST /__admin/clock HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n\(String(json.utf8.count, radix: 16))\r\n\(json)\r\n0\r\n\r\n"
            )
            #expect(Self.status(connection.read().text) == 200)
        }
    }

    @Test(
        "Expect: 100-continue with a Content-Length over the route's limit gets 413 at once, not 100 Continue",
        arguments: [
            ("/auth/token", 64 * 1024 + 1, "application/x-www-form-urlencoded", #"{"error":"invalid_request"}"#),
            ("/__admin/scenarios?name=big", 1024 * 1024 + 1, "application/json", "payload_too_large"),
        ])
    func expectContinueOverLimit(path: String, length: Int, contentType: String, body: String) async throws {
        try await ChildServers.with { children in
            let server = try await children.start(state: "memory")
            let port = server.port
            let connection = try RawConnection(port: port)
            connection.send(
                "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(contentType)\r\nContent-Length: \(length)\r\nExpect: 100-continue\r\n\r\n"
            )
            let answer = connection.read()
            #expect(Self.status(answer.text) == 413, "\(answer.text)")
            #expect(!answer.text.contains("100 Continue"))
            #expect(answer.text.contains(body))
            #expect(answer.closed, "the connection closes: the body is never read")
            // Within the limit, 100 Continue as before.
            let small = try RawConnection(port: port)
            small.send(
                "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(contentType)\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n"
            )
            #expect(small.read(until: "\r\n\r\n").text.hasPrefix("HTTP/1.1 100 Continue"))
            small.send("{}")
            let final = small.read(until: "}").text
            #expect(Self.status(final) != nil && Self.status(final) != 413, "\(final)")
            // A client that goes away in the middle of a body it announced gets no crash, only a closed connection.
            let gone = try RawConnection(port: port)
            gone.send(
                "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(contentType)\r\nContent-Length: 10\r\n\r\nab"
            )
            gone.hangUp()
            #expect(try await server.client.get("/health").status == 200)
        }
    }
}
