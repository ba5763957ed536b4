#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MockAppleID {
    /// A request body for `send`.
    public enum Body: Sendable {
        /// A JSON text (the control plane's bodies).
        case json(String)
        /// Form fields, in order (Apple's `/auth/*` bodies).
        case form([(String, String)])
    }

    /// One answer of the mock.
    public struct Answer: Sendable {
        /// The HTTP status code.
        public var status: Int
        /// The header fields, by canonical name (`Content-Type`, `Location`, …).
        public var headers: [String: String]
        /// The body as text.
        public var body: String

        /// The body decoded as `T` (JSON).
        public func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try MockAppleID.decoder.decode(T.self, from: Data(body.utf8))
        }
    }
}

/// Why a helper of `MockAppleID` could not do what it was asked.
public enum MockAppleIDError: Error, CustomStringConvertible, Sendable {
    /// The mock answered something other than success: the path, the status and the body say why.
    case unexpectedAnswer(path: String, status: Int, body: String)
    /// A header name that HTTP does not allow.
    case invalidHeader(String)
    /// `waitForNotification` saw no matching notification in time.
    case timedOut(String)
    /// A helper was given something it cannot pass on (the message says what).
    case invalidArgument(String)
    /// `verify` found the journal not as expected: what was expected and found, and the near misses.
    case verificationFailed(String)

    public var description: String {
        switch self {
        case .unexpectedAnswer(let path, let status, let body):
            return "\(path) answered \(status): \(body.prefix(2000))"
        case .invalidHeader(let name):
            return "\"\(name)\" is not a valid header name"
        case .timedOut(let what):
            return "timed out waiting for \(what)"
        case .invalidArgument(let message):
            return message
        case .verificationFailed(let report):
            return report
        }
    }
}
