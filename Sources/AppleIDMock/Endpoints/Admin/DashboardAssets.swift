/// The dashboard's files (`Resources/dashboard`), read once into memory with their content type
/// and an ETag.
enum DashboardAssets {
    /// The files by name.
    static let files = BundledAsset.load(
        folder: "dashboard", names: BundledResources.files(in: "dashboard"), contentType: contentType(of:))

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
