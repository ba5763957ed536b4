import AsyncHTTPClient
import NIOCore
import NIOPosix
import NIOSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a notification post got no answer, told by the error's type where the post failed (the HTTP
/// client's, NIO's, the system's or TLS's): what `DeliveryOutcomeWords` says in plain words. Kept
/// with the attempt beside the error's own text.
enum DeliveryFailure: String, Sendable, Codable, CaseIterable {
    /// Nothing listens at the receiver's port.
    case connectionRefused = "connection_refused"
    /// The connection was not made in time.
    case connectTimeout = "connect_timeout"
    /// The receiver's host name could not be resolved.
    case unresolvable
    /// The receiver closed the connection without answering.
    case closedWithoutAnswer = "closed_without_answer"
    /// No route to the receiver's network or host.
    case unreachable
    /// The TLS handshake or session failed.
    case tls
    /// Anything else.
    case other

    /// The failure `error` names.
    init(_ error: any Error) {
        switch error {
        case let error as HTTPClientError: self = Self.failure(of: error)
        case let error as NIOConnectionError: self = Self.failure(of: error)
        case let error as IOError: self = Self.failure(errno: error.errnoCode)
        case let error as ChannelError: self = Self.failure(of: error)
        case is SocketAddressError.UnknownHost: self = .unresolvable
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError: self = .tls
        default: self = .other
        }
    }

    private static func failure(of error: HTTPClientError) -> DeliveryFailure {
        switch error {
        case .remoteConnectionClosed: .closedWithoutAnswer
        case .connectTimeout: .connectTimeout
        case .tlsHandshakeTimeout: .tls
        default: .other
        }
    }

    /// The first connection's failure that tells something; a failed lookup when no connection
    /// was tried.
    private static func failure(of error: NIOConnectionError) -> DeliveryFailure {
        if let told = error.connectionErrors.lazy.map({ DeliveryFailure($0.error) }).first(where: { $0 != .other }) {
            return told
        }
        let lookupFailed = error.dnsAError != nil || error.dnsAAAAError != nil
        return error.connectionErrors.isEmpty && lookupFailed ? .unresolvable : .other
    }

    private static func failure(of error: ChannelError) -> DeliveryFailure {
        switch error {
        case .connectTimeout: .connectTimeout
        case .eof, .inputClosed, .outputClosed, .alreadyClosed, .ioOnClosedChannel: .closedWithoutAnswer
        case .writeHostUnreachable: .unreachable
        default: .other
        }
    }

    private static func failure(errno: CInt) -> DeliveryFailure {
        switch errno {
        case ECONNREFUSED: .connectionRefused
        case ETIMEDOUT: .connectTimeout
        case ECONNRESET, EPIPE: .closedWithoutAnswer
        case ENETUNREACH, EHOSTUNREACH: .unreachable
        default: .other
        }
    }
}
