#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A delivery attempt's outcome in plain words for people ("connection refused by
/// localhost:3000", "localhost:3000 answered HTTP 503"), from the outcome the attempt recorded
/// (whose own words, with the HTTP client's error text, stay available as they are); a failed
/// connection by the `DeliveryFailure` told where the post failed.
enum DeliveryOutcomeWords {
    /// The plain-words summary of `outcome`, for an attempt posted to `url`.
    static func summary(_ outcome: DeliveryOutcome, status: Int?, url: String?) -> String {
        let receiver = url.flatMap(hostAndPort) ?? "the receiver"
        switch outcome {
        case .delivered: return "delivered: \(receiver) answered HTTP \(status.map(String.init) ?? "2xx")"
        case .http(let code): return "\(receiver) answered HTTP \(status ?? code)"
        case .timedOut(let milliseconds): return "no answer from \(receiver) within \(milliseconds) ms"
        case .droppedByFault(let rule): return "not sent: fault rule \(rule) dropped it"
        case .noURL, .unsendable, .unsigned: return outcome.description
        case .failed(_, let failure):
            if let status { return "\(receiver) answered HTTP \(status)" }
            return words(failure, receiver: receiver)
        }
    }

    /// A failed connection to `receiver` in plain words.
    static func words(_ failure: DeliveryFailure, receiver: String) -> String {
        switch failure {
        case .connectionRefused: "connection refused by \(receiver)"
        case .connectTimeout: "could not connect to \(receiver) in time"
        case .unresolvable: "could not find the address of \(receiver)"
        case .closedWithoutAnswer: "\(receiver) closed the connection without answering"
        case .unreachable: "\(receiver) cannot be reached from here"
        case .tls: "the TLS connection to \(receiver) failed"
        case .other: "could not deliver to \(receiver)"
        }
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
