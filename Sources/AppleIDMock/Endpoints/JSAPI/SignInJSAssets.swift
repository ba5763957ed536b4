/// The mock's Sign in with Apple JS (`Resources/jsapi`): `appleid.auth.js` and its typings
/// `appleid.auth.d.ts`, read once into memory with their content type and an ETag.
enum SignInJSAssets {
    /// The served file names and their content types.
    static let contentTypes = [
        "appleid.auth.js": "text/javascript; charset=utf-8",
        "appleid.auth.d.ts": "application/typescript; charset=utf-8",
    ]

    /// The files by name (empty when the resources are not installed beside the executable).
    static let files = BundledAsset.load(folder: "jsapi", names: Array(contentTypes.keys)) { contentTypes[$0] }
}
