import NIOSSL

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Why the server cannot answer HTTPS with the given files; it refuses to start, in one line.
public struct TLSSetupError: Error, CustomStringConvertible, Sendable {
    /// The file at fault and what is wrong with it.
    public let description: String
}

/// Loads and checks the TLS files before the server binds, so that a wrong path, a file that is
/// not PEM, or a key that does not belong to the certificate stops start-up with a clear message
/// instead of failing each handshake. Serves TLS 1.2 and 1.3 only, with forward-secret AEAD suites.
enum TLSSetup {
    /// How soon before the certificate ends start-up warns.
    static let expiryWarningDays = 30

    /// The TLS 1.2 suites offered: ECDHE key exchange (forward secrecy) with an AEAD cipher only; no
    /// static RSA, no CBC. TLS 1.3's suites are all of this kind and not configurable.
    static let forwardSecretAEADSuites: [NIOTLSCipher] = [
        .TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, .TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
        .TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, .TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
        .TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, .TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    ]

    /// The server-side TLS configuration for `files`, and a warning when the certificate is no
    /// longer or not yet valid at `now` (wall clock: clients check the real time), or ends soon.
    static func load(_ files: TLSFiles, now: Date = Date()) throws(TLSSetupError) -> (
        configuration: TLSConfiguration, warning: String?
    ) {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(files.certificateChainPath)
        } catch {
            throw TLSSetupError(description: problem(files.certificateChainPath, "a PEM certificate chain", error))
        }
        guard let leaf = chain.first else {
            throw TLSSetupError(
                description: "cannot use TLS certificate \(files.certificateChainPath): it holds no PEM certificate")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: files.privateKeyPath, format: .pem)
        } catch {
            throw TLSSetupError(description: problem(files.privateKeyPath, "a PEM private key", error))
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.cipherSuiteValues = forwardSecretAEADSuites
        do {
            // Checks that the key belongs to the certificate, as each handshake would.
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw TLSSetupError(
                description:
                    "cannot use TLS key \(files.privateKeyPath) with certificate \(files.certificateChainPath): the key does not match the certificate (\(error))"
            )
        }
        return (configuration, validityWarning(leaf, path: files.certificateChainPath, now: now))
    }

    /// A one-line warning when `leaf` is outside its validity at `now` or ends within 30 days.
    static func validityWarning(_ leaf: NIOSSLCertificate, path: String, now: Date) -> String? {
        let notBefore = Date(timeIntervalSince1970: TimeInterval(leaf.notValidBefore))
        let notAfter = Date(timeIntervalSince1970: TimeInterval(leaf.notValidAfter))
        let day = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day()
        let renew = "(scripts/make-tls-certs.sh re-issues the bundled one)"
        if now < notBefore {
            return "TLS certificate \(path) is not valid before \(day.format(notBefore)): clients will refuse it"
        }
        if now > notAfter {
            return "TLS certificate \(path) expired on \(day.format(notAfter)): clients will refuse it \(renew)"
        }
        if notAfter.timeIntervalSince(now) < TimeInterval(expiryWarningDays * 86_400) {
            return "TLS certificate \(path) expires on \(day.format(notAfter)) \(renew)"
        }
        return nil
    }

    private static func problem(_ path: String, _ expected: String, _ error: any Error) -> String {
        guard FileManager.default.fileExists(atPath: path) else {
            return "cannot use TLS file \(path): no such file"
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            return "cannot use TLS file \(path): not readable"
        }
        if let text = try? String(contentsOfFile: path, encoding: .utf8), text.contains("ENCRYPTED") {
            return
                "cannot use TLS file \(path): the key is encrypted; give it without a passphrase (openssl pkey -in \(path) -out plain-key.pem)"
        }
        return "cannot use TLS file \(path): not \(expected) (\(error))"
    }
}
