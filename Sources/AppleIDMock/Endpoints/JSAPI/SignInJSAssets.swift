import Crypto
import Foundation
import Hummingbird

/// The mock's Sign in with Apple JS (`Resources/jsapi`): `appleid.auth.js` and its typings
/// `appleid.auth.d.ts`, read once into memory with their content type and an ETag.
enum SignInJSAssets {
    /// One file, ready to send.
    struct Asset: Sendable {
        var body: ByteBuffer
        var contentType: String
        var etag: String
    }

    /// The served file names and their content types.
    static let contentTypes = [
        "appleid.auth.js": "text/javascript; charset=utf-8",
        "appleid.auth.d.ts": "application/typescript; charset=utf-8",
    ]

    /// The files by name (empty when the resources are not installed beside the executable).
    static let files: [String: Asset] = {
        var assets: [String: Asset] = [:]
        for (name, type) in contentTypes {
            guard let data = BundledResources.data("jsapi/\(name)") else { continue }
            let digest = SHA256.hash(data: data).prefix(8).lowercaseHex
            assets[name] = Asset(body: ByteBuffer(bytes: data), contentType: type, etag: "\"\(digest)\"")
        }
        return assets
    }()
}
