import Foundation
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
            DeliveryOutcomeWords.summary(
                DeliveryOutcome(words: outcome), status: status, url: "http://localhost:3000/auth/apple/notifications")
                == expected)
    }

    @Test("outcomes are stored as the words they always had, and read back as the same case")
    func storedWords() throws {
        let deliveries: [(DeliveryOutcome, String)] = [
            (.delivered, "delivered"), (.http(503), "http 503"),
            (.timedOut(milliseconds: 5000), "timed out after 5000 ms"),
            (.droppedByFault("f2"), "not sent: dropped by fault rule f2"), (.noURL, "no notificationUrl"),
            (.unsendable("the URL has no host"), "not sent: the URL has no host"),
            (.unsigned, "the notification could not be signed"), (.failed("connection reset"), "connection reset"),
        ]
        for (outcome, words) in deliveries {
            #expect(outcome.description == words)
            #expect(DeliveryOutcome(words: words) == outcome)
            let data = try JSONEncoder().encode([outcome])
            #expect(String(decoding: data, as: UTF8.self) == "[\"\(words)\"]")
            #expect(try JSONDecoder().decode([DeliveryOutcome].self, from: data) == [outcome])
        }
        let journal: [(JournalOutcome, String)] = [
            (.ok, "ok"), (.refused("invalid_grant"), "invalid_grant"), (.dropped, "dropped"), (.http(404), "http_404"),
            (.noAnswer, "no_answer"), (.failed, "failed"),
        ]
        for (outcome, word) in journal {
            #expect(outcome.description == word)
            #expect(JournalOutcome(word: word) == outcome)
        }
        #expect(JournalOutcome(status: 302, refusal: nil) == .ok)
        #expect(JournalOutcome(status: 400, refusal: "invalid_client") == .refused("invalid_client"))
        #expect(JournalOutcome(status: 405, refusal: nil) == .http(405))
        #expect(JournalOutcome(notificationStatus: nil, dropped: true) == .dropped)
        #expect(JournalOutcome(notificationStatus: 204, dropped: false) == .ok)
    }

    @Test("host and port: the scheme's port when the URL has none, IPv6 in brackets")
    func hostAndPort() {
        #expect(DeliveryOutcomeWords.hostAndPort("https://example.com/notify") == "example.com:443")
        #expect(DeliveryOutcomeWords.hostAndPort("http://[::1]:8080/n") == "[::1]:8080")
        #expect(DeliveryOutcomeWords.hostAndPort("not a url") == nil)
    }
}
