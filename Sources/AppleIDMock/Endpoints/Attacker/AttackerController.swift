import Hummingbird
import NIOPosix

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `GET /__attacker/jwks` and `GET /__attacker/certificate.pem`: the attacker's key as a JWKS and
/// as a self-signed certificate, where the `jku` and `x5u` headers of `key-header-injection` point
/// (`AttackerMaterial`). Open without the admin token (a backend that follows the header fetches
/// them as it would any URL: behind the guard, its fetch would fail and the hole read as a
/// refusal), outside Apple's paths (neither in the JWKS nor in the journal: each fetch goes to
/// `fetches` instead, which conformance runs add to their cases' journal notes). A backend that
/// uses either to verify a token has a hole. The material is made off the event loop (the key's
/// first use makes an RSA-2048 key), as these routes need no token.
struct AttackerController: Sendable {
    let fetches: AttackerFetches

    func addRoutes(to router: Router<MockRequestContext>) {
        serve(AttackerPath.jwks, as: "application/json", on: router) { ByteBuffer(bytes: try AttackerMaterial.jwks()) }
        // RFC 8555 §9.1's type for a PEM chain, the form RFC 7515 gives x5u.
        serve(AttackerPath.certificate, as: "application/pem-certificate-chain", on: router) {
            ByteBuffer(string: try AttackerMaterial.certificatePEM())
        }
    }

    /// `GET path`: `material`, made off the event loop, as `contentType`; each fetch recorded with
    /// its peer and the time it began.
    private func serve(
        _ path: String, as contentType: String, on router: Router<MockRequestContext>,
        _ material: @escaping @Sendable () throws -> ByteBuffer
    ) {
        router.get(RouterPath(path)) { _, context in
            let started = Date()
            let body = try await NIOThreadPool.singleton.runIfActive(material)
            fetches.record(path, peer: context.channel.remoteAddress?.ipAddress, at: started)
            return Response(
                status: .ok, headers: [.contentType: contentType, .cacheControl: "no-store"],
                body: .init(byteBuffer: body))
        }
    }
}
