import Testing

@testable import AppleIDMock

/// Delivery outcomes in plain words, as the dashboard's outbox shows them.
@Suite("Delivery outcomes in plain words")
struct DeliveryOutcomeWordsTests {
    @Test(
        "each kind of outcome reads as a sentence naming the receiver",
        arguments: [
            ("delivered", 200, "delivered: localhost:3000 answered HTTP 200"),
            ("http 503", 503, "localhost:3000 answered HTTP 503"),
            (
                #"NIOConnectionError(host: "localhost", port: 3000, dnsAError: nil, dnsAAAAError: nil, connectionErrors: [NIOPosix.SingleConnectionFailure(target: [IPv4]localhost/127.0.0.1:3000, error: connection reset (error set): Connection refused (errno: 111))])"#,
                nil, "connection refused by localhost:3000"
            ),
            ("timed out after 5000 ms", nil, "no answer from localhost:3000 within 5000 ms"),
            ("not sent: dropped by fault rule f2", nil, "not sent: fault rule f2 dropped it"),
            ("HTTPClientError.remoteConnectionClosed", nil, "localhost:3000 closed the connection without answering"),
            ("something new", nil, "could not deliver to localhost:3000"),
        ] as [(String, Int?, String)])
    func summaries(outcome: String, status: Int?, expected: String) {
        #expect(
            DeliveryOutcomeWords.summary(outcome, status: status, url: "http://localhost:3000/auth/apple/notifications")
                == expected)
    }

    @Test("host and port: the scheme's port when the URL has none, IPv6 in brackets")
    func hostAndPort() {
        #expect(DeliveryOutcomeWords.hostAndPort("https://example.com/notify") == "example.com:443")
        #expect(DeliveryOutcomeWords.hostAndPort("http://[::1]:8080/n") == "[::1]:8080")
        #expect(DeliveryOutcomeWords.hostAndPort("not a url") == nil)
    }
}
