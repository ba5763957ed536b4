// The bare server: what Hummingbird and OpenSSL do on this machine with none of the mock's work.
// scripts/benchmark.sh runs it next to the mock, so each of the mock's rates and its idle RSS can
// be read against the stack it is built on, measured in the same run.
//
//   bare-server <port> <keys answer> <token answer> <RSA key PEM>
//
// - `GET /auth/keys` answers the bytes of <keys answer> (the mock's JWKS).
// - `POST /auth/token` reads the body and answers <token answer> (one of the mock's token
//   answers) with its id_token signed again, each time over a different input: one RS256
//   signature per request, with an answer of the same size, and nothing else (no parsing, no state).
// - `GET /health` answers 200.
// Both answers carry the headers the mock's do.
import CBareOpenSSL
import Foundation
import Hummingbird
import Synchronization

/// RS256 signatures from OpenSSL, one key per lane so that every core can sign at once: the
/// mock's `OpenSSLRSASigner` written again rather than imported, since depending on the mock's
/// package would link its library, and its start-up, into the server it is measured against.
final class BareSigner: Sendable {
    /// One parsed key with its signing context.
    struct Lane: ~Copyable {
        let key: OpaquePointer
        let context: OpaquePointer

        init(pem: [UInt8]) {
            let parsed = pem.withUnsafeBytes { bytes -> OpaquePointer? in
                guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
                defer { BIO_free(bio) }
                return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
            }
            guard let parsed, let context = EVP_PKEY_CTX_new(parsed, nil), EVP_PKEY_sign_init(context) == 1,
                EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1,
                EVP_PKEY_CTX_set_signature_md(context, EVP_sha256()) == 1
            else { fatalError("not an RSA private key in PEM") }
            key = parsed
            self.context = context
        }

        deinit {
            EVP_PKEY_CTX_free(context)
            EVP_PKEY_free(key)
        }

        func sign(_ message: [UInt8]) -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
            message.withUnsafeBufferPointer { input in _ = SHA256(input.baseAddress, input.count, &digest) }
            var signature = [UInt8](repeating: 0, count: Int(EVP_PKEY_get_size(key)))
            var length = signature.count
            guard EVP_PKEY_sign(context, &signature, &length, digest, digest.count) == 1 else {
                fatalError("OpenSSL could not sign")
            }
            return Array(signature.prefix(length))
        }
    }

    /// A lane in a lock, to keep in an array.
    final class LaneBox: Sendable {
        let lane: Mutex<Lane>
        init(_ lane: consuming sending Lane) { self.lane = Mutex(lane) }
    }

    private let lanes: [LaneBox]
    private let next = Atomic<Int>(0)

    init(pem: [UInt8], lanes count: Int) {
        lanes = (0..<count).map { _ in LaneBox(Lane(pem: pem)) }
    }

    /// The signature of `message`, from a free lane if there is one.
    func sign(_ message: [UInt8]) -> [UInt8] {
        let start = next.add(1, ordering: .relaxed).newValue
        for offset in 0..<lanes.count {
            if let signed = lanes[(start &+ offset) % lanes.count].lane.withLockIfAvailable({ $0.sign(message) }) {
                return signed
            }
        }
        return lanes[start % lanes.count].lane.withLock { $0.sign(message) }
    }
}

/// The token answer, split around its id_token's signature.
struct TokenTemplate: Sendable {
    /// The answer up to the signing input, the signing input, and what follows the signature.
    let head: [UInt8]
    let signingInput: [UInt8]
    let tail: [UInt8]

    init(answer: [UInt8]) {
        let marker = Array(#""id_token":""#.utf8)
        guard let start = answer.firstRange(of: marker)?.upperBound,
            let end = answer[start...].firstIndex(of: UInt8(ascii: "\"")),
            let lastDot = answer[start..<end].lastIndex(of: UInt8(ascii: "."))
        else { fatalError("the token answer has no id_token") }
        head = Array(answer[..<start])
        signingInput = Array(answer[start..<lastDot])
        tail = Array(answer[end...])
    }

    /// The signing input with its last bytes replaced by the digits of `counter` (still base64url).
    func input(_ counter: Int) -> [UInt8] {
        var input = signingInput
        let digits = Array(String(counter).utf8)
        input.replaceSubrange((input.count - digits.count)..., with: digits)
        return input
    }
}

/// base64url without padding.
func base64URL(_ bytes: [UInt8]) -> [UInt8] {
    Array(
        Data(bytes).base64EncodedString().utf8.lazy.compactMap { byte -> UInt8? in
            switch byte {
            case UInt8(ascii: "+"): UInt8(ascii: "-")
            case UInt8(ascii: "/"): UInt8(ascii: "_")
            case UInt8(ascii: "="): nil
            default: byte
            }
        })
}

let arguments = CommandLine.arguments
guard arguments.count == 5, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: bare-server <port> <keys answer> <token answer> <RSA key PEM>\n".utf8))
    exit(2)
}
let keysAnswer = ByteBuffer(bytes: try Data(contentsOf: URL(fileURLWithPath: arguments[2])))
let template = TokenTemplate(answer: Array(try Data(contentsOf: URL(fileURLWithPath: arguments[3]))))
let signer = BareSigner(
    pem: Array(try Data(contentsOf: URL(fileURLWithPath: arguments[4]))),
    lanes: 2 * ProcessInfo.processInfo.activeProcessorCount)
let counter = Atomic<Int>(0)
let headers: HTTPFields = [
    .contentType: "application/json;charset=UTF-8", .cacheControl: "no-store", .init("Pragma")!: "no-cache",
]

let router = Router()
router.get("health") { _, _ in HTTPResponse.Status.ok }
router.get("auth/keys") { _, _ in Response(status: .ok, headers: headers, body: .init(byteBuffer: keysAnswer)) }
router.post("auth/token") { request, _ in
    _ = try await request.body.collect(upTo: 65_536)
    let input = template.input(counter.add(1, ordering: .relaxed).newValue)
    let signature = base64URL(signer.sign(input))
    var answer = ByteBuffer()
    answer.reserveCapacity(template.head.count + input.count + 1 + signature.count + template.tail.count)
    answer.writeBytes(template.head)
    answer.writeBytes(input)
    answer.writeInteger(UInt8(ascii: "."))
    answer.writeBytes(signature)
    answer.writeBytes(template.tail)
    return Response(status: .ok, headers: headers, body: .init(byteBuffer: answer))
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
