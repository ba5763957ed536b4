/// The rules for a namespace's name: 1 to 64 of `A-Z a-z 0-9 . _ -`, beginning and ending with a
/// letter or digit (so `.`, `..` and `...`, which a browser or proxy folds out of a path, are never
/// names). The world that exists without namespaces is `default`.
package enum NamespaceName {
    /// The namespace of every request that names none.
    static let `default` = "default"
    /// The longest name.
    static let maxLength = 64
    /// The header that names a request's namespace.
    static let header = "X-Apple-ID-Mock-Namespace"
    /// The cookie the dashboard sets when a tester works in a namespace.
    static let cookie = "apple_id_mock_namespace"
    /// The path prefix's first component: `/ns/{name}/…` (the Swift kit spells its URLs with it).
    package static let pathComponent = "ns"

    /// The path prefix that names the namespace `name`: `/ns/{name}`.
    static func pathPrefix(_ name: String) -> String {
        "/\(pathComponent)/\(name)"
    }

    /// Why `name` is not a namespace's name, or `nil` when it is one.
    static func problem(_ name: some StringProtocol) -> String? {
        if name.isEmpty { return "a namespace's name is 1 to \(maxLength) characters; found an empty one" }
        if name.utf8.count > maxLength {
            return "a namespace's name is at most \(maxLength) characters; found \(name.utf8.count)"
        }
        if let bad = name.unicodeScalars.first(where: { !isAllowed($0) }) {
            return
                "a namespace's name holds only A-Z a-z 0-9 . _ -; found \(bad.properties.generalCategory == .control ? "a control character" : "\"\(bad)\"")"
        }
        guard let first = name.unicodeScalars.first, let last = name.unicodeScalars.last,
            isLetterOrDigit(first), isLetterOrDigit(last)
        else { return "a namespace's name begins and ends with a letter or digit; found \"\(name)\"" }
        return nil
    }

    private static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9": true
        default: false
        }
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", ".", "_", "-": true
        default: false
        }
    }
}
