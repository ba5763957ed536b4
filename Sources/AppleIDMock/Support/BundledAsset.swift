import Crypto
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A bundled file read once into memory, ready to send: its bytes, its content type and an ETag
/// made from its digest. The dashboard and Sign in with Apple JS are served from these.
struct BundledAsset: Sendable {
    var body: ByteBuffer
    var contentType: String
    var etag: String

    /// The files `names` of the resource folder `folder` that `contentType` gives a type for, by
    /// name (a file missing beside the executable is left out).
    static func load(folder: String, names: [String], contentType: (String) -> String?) -> [String: BundledAsset] {
        var assets: [String: BundledAsset] = [:]
        for name in names {
            guard let type = contentType(name), let data = BundledResources.data("\(folder)/\(name)") else {
                continue
            }
            let digest = SHA256.hash(data: data).prefix(8).lowercaseHex
            assets[name] = BundledAsset(body: ByteBuffer(bytes: data), contentType: type, etag: "\"\(digest)\"")
        }
        return assets
    }
}
