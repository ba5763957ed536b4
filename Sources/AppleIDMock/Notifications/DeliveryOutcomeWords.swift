#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A delivery attempt's outcome in plain words for people ("connection refused by
/// localhost:3000", "localhost:3000 answered HTTP 503"), from the outcome the attempt recorded
/// (whose own words, with the HTTP client's error text, stay available as they are).
enum DeliveryOutcomeWords {
    /// The plain-words summary of `outcome`, for an attempt posted to `url`.
    static func summary(_ outcome: DeliveryOutcome, status: Int?, url: String?) -> String {
        let receiver = url.flatMap(hostAndPort) ?? "the receiver"
        let error: String
        switch outcome {
        case .delivered: return "delivered: \(receiver) answered HTTP \(status.map(String.init) ?? "2xx")"
        case .http(let code): return "\(receiver) answered HTTP \(status ?? code)"
        case .timedOut(let milliseconds): return "no answer from \(receiver) within \(milliseconds) ms"
        case .droppedByFault(let rule): return "not sent: fault rule \(rule) dropped it"
        case .noURL, .unsendable, .unsigned: return outcome.description
        case .failed(let text): error = text
        }
        if let status { return "\(receiver) answered HTTP \(status)" }
        let text = error.lowercased()
        let cases: [(needles: [String], words: String)] = [
            (["connection refused", "connectionrefused", "errno: 111"], "connection refused by \(receiver)"),
            (
                ["connecttimeout", "connect timeout", "connection timed out", "errno: 110"],
                "could not connect to \(receiver) in time"
            ),
            (
                [
                    "could not resolve", "dnsaerror", "name or service not known", "no address associated",
                    "getaddrinfo",
                ],
                "could not find the address of \(receiver)"
            ),
            (
                ["remoteconnectionclosed", "connection reset", "errno: 104", "eof"],
                "\(receiver) closed the connection without answering"
            ),
            (
                ["network is unreachable", "no route to host", "errno: 101", "errno: 113"],
                "\(receiver) cannot be reached from here"
            ),
            (["certificate", "handshake", "ssl", "tls"], "the TLS connection to \(receiver) failed"),
        ]
        for (needles, words) in cases where needles.contains(where: text.contains) { return words }
        return "could not deliver to \(receiver)"
    }

    /// `host:port` of an http(s) URL, the port spelled out (80 or 443 when the URL has none).
    static func hostAndPort(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else {
            return nil
        }
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
        return "\(host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host):\(port)"
    }
}
