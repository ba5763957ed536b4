import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The C library's `send`, named apart from `RawConnection.send`.
private func systemSend(_ socket: Int32, _ buffer: UnsafeRawPointer?, _ length: Int, _ flags: Int32) -> Int {
    send(socket, buffer, length, flags)
}

/// A plain TCP connection to 127.0.0.1 for tests that need bytes on the wire: a request whose
/// headers trickle in, or one that waits for `100 Continue` before its body.
final class RawConnection {
    private let descriptor: Int32

    /// Connects to `port` on 127.0.0.1; reads give up after `readTimeout` seconds.
    init(port: Int, readTimeout: Double = 5) throws {
        #if canImport(Glibc)
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var timeout = timeval(tv_sec: Int(readTimeout), tv_usec: .init((readTimeout - Double(Int(readTimeout))) * 1e6))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit {
        close(descriptor)
    }

    /// Ends the connection from this side (both directions), as a client that goes away does.
    func hangUp() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Sends `text`; false if the connection is gone.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
        #else
            let flags = Int32(0)
        #endif
        return bytes.withUnsafeBytes { systemSend(descriptor, $0.baseAddress, $0.count, flags) } == bytes.count
    }

    /// What arrives until `marker` is seen, the peer closes, or the read times out; and whether the
    /// peer closed the connection.
    func read(until marker: String? = nil) -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { return (String(decoding: received, as: UTF8.self), true) }
            if count < 0 { return (String(decoding: received, as: UTF8.self), false) }
            received += buffer[0..<count]
            if let marker, String(decoding: received, as: UTF8.self).contains(marker) {
                return (String(decoding: received, as: UTF8.self), false)
            }
        }
    }
}
