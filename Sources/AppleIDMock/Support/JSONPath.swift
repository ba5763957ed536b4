/// A JSONPath-style location inside a document (`$.users[2].email`), used in error messages.
struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    private let rendered: String

    /// The document root, `$`.
    static let root = JSONPath(rendered: "$")

    private init(rendered: String) {
        self.rendered = rendered
    }

    /// The path of a member of the object at this path.
    func member(_ name: String) -> JSONPath {
        let isPlain = !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
        return JSONPath(rendered: isPlain ? "\(rendered).\(name)" : "\(rendered)[\"\(name)\"]")
    }

    /// A query-string parameter of the request (`?since`), for errors about the URL rather than the body.
    static func query(_ name: String) -> JSONPath {
        JSONPath(rendered: "?\(name)")
    }

    /// The path of an element of the array at this path.
    func index(_ position: Int) -> JSONPath {
        JSONPath(rendered: "\(rendered)[\(position)]")
    }

    var description: String { rendered }
}
