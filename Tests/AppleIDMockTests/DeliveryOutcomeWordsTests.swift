import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Testing

@testable import AppleIDMock

#if canImport(Glibc)
    import Glibc
#endif

/// Delivery outcomes in plain words, as the dashboard's outbox shows them; a failed post told by
/// the type of the error where it was caught, its text kept as the outcome's words.
@Suite("Delivery outcomes in plain words")
struct DeliveryOutcomeWordsTests {
    static let url = "http://localhost:3000/auth/apple/notifications"

    @Test(
        "each kind of outcome reads as a sentence naming the receiver",
        arguments: [
            ("delivered", 200, "delivered: localhost:3000 answered HTTP 200"),
            ("http 503", 503, "localhost:3000 answered HTTP 503"),
            ("timed out after 5000 ms", nil, "no answer from localhost:3000 within 5000 ms"),
            ("not sent: dropped by fault rule f2", nil, "not sent: fault rule f2 dropped it"),
        ] as [(String, Int?, String)])
    func summaries(outcome: String, status: Int?, expected: String) {
        #expect(
            DeliveryOutcomeWords.summary(DeliveryOutcome(words: outcome), status: status, url: Self.url) == expected)
    }

    /// An error of the mock's own, which says nothing of the connection.
    struct Unforeseen: Error, CustomStringConvertible {
        var description: String { "connection refused, eof, tls (words that no longer decide)" }
    }

    static let failures: [(any Error, DeliveryFailure, String)] = [
        (
            IOError(errnoCode: ECONNREFUSED, reason: "connect"), .connectionRefused,
            "connection refused by localhost:3000"
        ),
        (
            IOError(errnoCode: ETIMEDOUT, reason: "connect"), .connectTimeout,
            "could not connect to localhost:3000 in time"
        ),
        (HTTPClientError.connectTimeout, .connectTimeout, "could not connect to localhost:3000 in time"),
        (ChannelError.connectTimeout(.seconds(1)), .connectTimeout, "could not connect to localhost:3000 in time"),
        (
            HTTPClientError.remoteConnectionClosed, .closedWithoutAnswer,
            "localhost:3000 closed the connection without answering"
        ),
        (ChannelError.eof, .closedWithoutAnswer, "localhost:3000 closed the connection without answering"),
        (
            IOError(errnoCode: ECONNRESET, reason: "read"), .closedWithoutAnswer,
            "localhost:3000 closed the connection without answering"
        ),
        (
            IOError(errnoCode: EHOSTUNREACH, reason: "connect"), .unreachable,
            "localhost:3000 cannot be reached from here"
        ),
        (
            IOError(errnoCode: ENETUNREACH, reason: "connect"), .unreachable,
            "localhost:3000 cannot be reached from here"
        ),
        (NIOSSLError.handshakeFailed(.sslError([])), .tls, "the TLS connection to localhost:3000 failed"),
        (NIOSSLError.unableToValidateCertificate, .tls, "the TLS connection to localhost:3000 failed"),
        (HTTPClientError.tlsHandshakeTimeout, .tls, "the TLS connection to localhost:3000 failed"),
        (HTTPClientError.invalidURL, .other, "could not deliver to localhost:3000"),
        (Unforeseen(), .other, "could not deliver to localhost:3000"),
    ]

    @Test("a failed post is told by its error's type, the error's text kept as the outcome's words")
    func failures() {
        for (error, failure, words) in Self.failures {
            #expect(DeliveryFailure(error) == failure, "\(error)")
            let outcome = DeliveryOutcome.failed("\(error)", DeliveryFailure(error))
            #expect(outcome.description == "\(error)")
            #expect(DeliveryOutcomeWords.summary(outcome, status: nil, url: Self.url) == words)
            #expect(
                DeliveryOutcomeWords.summary(outcome, status: 502, url: Self.url) == "localhost:3000 answered HTTP 502")
        }
    }

    @Test("a post to a port nobody listens on: connection refused, the client's error text as the words")
    func refusedLive() async throws {
        // A socket bound but never listening: a connection to it is refused, and the port stays
        // taken for the test (a port closed again may be bound by another test's server meanwhile).
        let reserved = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(reserved >= 0)
        defer { close(reserved) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(reserved, generic, length) == 0 && getsockname(reserved, generic, &length) == 0
            }
        }
        #expect(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let client = NotificationPost.makeClient()
        let (status, outcome) = await NotificationPost.send(
            "a.b.c", to: "http://127.0.0.1:\(port)/notify", timeoutMilliseconds: 5000, client: client)
        try await client.shutdown()
        #expect(status == nil)
        guard case .failed(let text, let failure) = outcome else {
            Issue.record("not a failure: \(outcome)")
            return
        }
        #expect(failure == .connectionRefused, "\(text)")
        #expect(outcome.description == text && !text.isEmpty)
        #expect(
            DeliveryOutcomeWords.summary(outcome, status: nil, url: "http://127.0.0.1:\(port)/notify")
                == "connection refused by 127.0.0.1:\(port)")
    }

    @Test("an attempt keeps its failure beside the words; one stored before reads as other")
    func storedFailure() throws {
        let attempt = NotificationRecord.Attempt(
            startedAt: Date(timeIntervalSince1970: 0), durationMilliseconds: 3, httpStatus: nil,
            outcome: .failed("Connection refused (errno: 111)", .connectionRefused))
        let data = try JSONEncoder().encode(attempt)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["outcome"] as? String == "Connection refused (errno: 111)")
        #expect(json["failure"] as? String == "connection_refused")
        let read = try JSONDecoder().decode(NotificationRecord.Attempt.self, from: data)
        #expect(read.outcome == attempt.outcome)
        let older = #"{"startedAt":0,"durationMilliseconds":3,"outcome":"Connection refused (errno: 111)"}"#
        let old = try JSONDecoder().decode(NotificationRecord.Attempt.self, from: Data(older.utf8))
        #expect(old.outcome == .failed("Connection refused (errno: 111)", .other))
        let delivered = NotificationRecord.Attempt(
            startedAt: Date(timeIntervalSince1970: 0), durationMilliseconds: 3, httpStatus: 200, outcome: .delivered)
        let plain = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(delivered)) as? [String: Any]
        #expect(plain?["failure"] == nil && plain?["outcome"] as? String == "delivered")
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
