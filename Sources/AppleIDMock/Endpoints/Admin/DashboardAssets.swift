import Crypto
import Foundation
import Hummingbird

/// The dashboard's files (`Resources/dashboard`), read once into memory with their content type
/// and an ETag.
enum DashboardAssets {
    /// One file of the dashboard, ready to send.
    struct Asset: Sendable {
        var body: ByteBuffer
        var contentType: String
        var etag: String
    }

    /// The files by name.
    static let files: [String: Asset] = {
        var assets: [String: Asset] = [:]
        for name in BundledResources.files(in: "dashboard") {
            guard let type = contentType(of: name), let data = BundledResources.data("dashboard/\(name)") else {
                continue
            }
            let digest = SHA256.hash(data: data).prefix(8).lowercaseHex
            assets[name] = Asset(body: ByteBuffer(bytes: data), contentType: type, etag: "\"\(digest)\"")
        }
        return assets
    }()

    private static func contentType(of name: String) -> String? {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        default: nil
        }
    }
}
