import Hummingbird
import NIOPosix

/// `GET /__attacker/jwks` and `GET /__attacker/certificate.pem`: the attacker's key as a JWKS and
/// as a self-signed certificate, where the `jku` and `x5u` headers of `key-header-injection` point
/// (`AttackerMaterial`). Open without the admin token (a backend that follows the header fetches
/// them as it would any URL: behind the guard, its fetch would fail and the hole read as a
/// refusal), outside Apple's paths (neither in the JWKS nor in the journal). A backend that uses
/// either to verify a token has a hole. The material is made off the event loop (the key's first
/// use makes an RSA-2048 key), as these routes need no token.
struct AttackerController: Sendable {
    func addRoutes(to router: Router<MockRequestContext>) {
        router.get(RouterPath(AttackerPath.jwks)) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(
                    byteBuffer: ByteBuffer(
                        bytes: try await NIOThreadPool.singleton.runIfActive { try AttackerMaterial.jwks() })))
        }
        router.get(RouterPath(AttackerPath.certificate)) { _, _ in
            // RFC 8555 §9.1's type for a PEM chain, the form RFC 7515 gives x5u.
            Response(
                status: .ok, headers: [.contentType: "application/pem-certificate-chain", .cacheControl: "no-store"],
                body: .init(
                    byteBuffer: ByteBuffer(
                        string: try await NIOThreadPool.singleton.runIfActive { try AttackerMaterial.certificatePEM() }
                    )))
        }
    }
}
