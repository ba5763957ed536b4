import COpenSSL
import Crypto
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// RS256 signatures (RSASSA-PKCS1-v1_5 over SHA-256) made by the system's OpenSSL, whose
/// assembler RSA is several times faster than the portable one. The key is loaded into a few
/// lanes, each an OpenSSL key with a signing context ready for SHA-256 digests and used by one
/// caller at a time (a `Mutex` guards it), so every core can sign at once. Each lane parses the PEM
/// itself (a few per key, once per process): lanes sharing one parsed key would send a
/// non-`Sendable` pointer across them, which strict concurrency refuses without unchecked code.
final class OpenSSLRSASigner: Sendable {
    /// Why a key could not be loaded or a signature made, with OpenSSL's reason.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// One parsed key and its signing context.
    private struct Lane: ~Copyable {
        let key: OpaquePointer
        let context: OpaquePointer

        init(pem: String) throws(Failure) {
            let bytes = Array(pem.utf8)
            let parsed: OpaquePointer? = bytes.withUnsafeBytes { buffer in
                guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
                defer { BIO_free(bio) }
                return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
            }
            guard let parsed else { throw Failure(description: "not a PEM private key (\(Self.reason()))") }
            guard EVP_PKEY_get_base_id(parsed) == EVP_PKEY_RSA else {
                EVP_PKEY_free(parsed)
                throw Failure(description: "not an RSA key")
            }
            guard let context = EVP_PKEY_CTX_new(parsed, nil) else {
                EVP_PKEY_free(parsed)
                throw Failure(description: "no signing context (\(Self.reason()))")
            }
            guard EVP_PKEY_sign_init(context) == 1, EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1,
                EVP_PKEY_CTX_set_signature_md(context, EVP_sha256()) == 1
            else {
                EVP_PKEY_CTX_free(context)
                EVP_PKEY_free(parsed)
                throw Failure(description: "cannot set up RS256 signing (\(Self.reason()))")
            }
            key = parsed
            self.context = context
        }

        deinit {
            EVP_PKEY_CTX_free(context)
            EVP_PKEY_free(key)
        }

        /// Signs a SHA-256 digest.
        func sign(digest: SHA256.Digest, size: Int) throws(Failure) -> [UInt8] {
            var signature = [UInt8](repeating: 0, count: size)
            var length = size
            let status = digest.withUnsafeBytes { digestBytes in
                signature.withUnsafeMutableBytes { output in
                    EVP_PKEY_sign(
                        context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length,
                        digestBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), digestBytes.count)
                }
            }
            guard status == 1 else { throw Failure(description: "signing failed (\(Self.reason()))") }
            if length < size { signature.removeLast(size - length) }
            return signature
        }

        /// The last OpenSSL error of this thread, as text.
        static func reason() -> String {
            let code = ERR_get_error()
            guard code != 0 else { return "no reason given" }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// A lane that can be stored in an array.
    private final class LaneBox: Sendable {
        let lane: Mutex<Lane>

        init(_ lane: consuming sending Lane) {
            self.lane = Mutex(lane)
        }
    }

    private let lanes: [LaneBox]
    private let next = Atomic<Int>(0)
    /// The signature's size in bytes (the modulus's).
    let signatureSize: Int

    /// Parses `pem` (PKCS#1 or PKCS#8) into as many lanes as `lanes` (twice the cores by default).
    init(pem: String, lanes count: Int = 2 * ProcessInfo.processInfo.activeProcessorCount) throws(Failure) {
        var boxes: [LaneBox] = []
        var size = 0
        for _ in 0..<max(1, count) {
            let lane = try Lane(pem: pem)
            size = Int(EVP_PKEY_get_size(lane.key))
            boxes.append(LaneBox(lane))
        }
        lanes = boxes
        signatureSize = size
    }

    /// The RS256 signature of `message`.
    func sign(_ message: some DataProtocol) throws(Failure) -> [UInt8] {
        let digest = SHA256.hash(data: message)
        let start = next.add(1, ordering: .relaxed).newValue
        // A free lane if there is one; otherwise wait for the one this call was dealt.
        for offset in 0..<lanes.count {
            let box = lanes[(start &+ offset) % lanes.count]
            let signed: Result<[UInt8], Failure>? = box.lane.withLockIfAvailable { lane in
                Result { () throws(Failure) in try lane.sign(digest: digest, size: signatureSize) }
            }
            if let signed { return try signed.get() }
        }
        return try lanes[start % lanes.count].lane.withLock { lane throws(Failure) in
            try lane.sign(digest: digest, size: signatureSize)
        }
    }
}
