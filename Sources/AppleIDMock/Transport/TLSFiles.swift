/// The certificate chain and private key the server answers HTTPS with (`--tls`, or your own files
/// with `--tls-cert` and `--tls-key`), both PEM.
public struct TLSFiles: Sendable, Equatable {
    /// The server's certificate, optionally followed by its intermediates.
    public var certificateChainPath: String
    /// The private key of the first certificate.
    public var privateKeyPath: String

    public init(certificateChainPath: String, privateKeyPath: String) {
        self.certificateChainPath = certificateChainPath
        self.privateKeyPath = privateKeyPath
    }

    /// The bundled test certificate for `appleid.apple.com`, `localhost`, `127.0.0.1` and `::1`, in
    /// `<keysDirectory>/tls/`, signed by the test CA `ca.pem` beside it (public by design).
    public static func bundled(keysDirectory: String) -> TLSFiles {
        let folder = keysDirectory.hasSuffix("/") ? keysDirectory + "tls/" : keysDirectory + "/tls/"
        return TLSFiles(
            certificateChainPath: folder + "appleid.apple.com.pem",
            privateKeyPath: folder + "appleid.apple.com-key.pem")
    }
}
