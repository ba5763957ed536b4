/// The name a space is stored under, and the one place its form is written: the registered space's
/// name for the default namespace's copy (`journal`, as before namespaces existed), and
/// `{namespace}/{space}` for a namespace's own copy (`team-a/journal`). A namespace's name holds no
/// `/` (`NamespaceName`), nor does a registered space's. Index groups are qualified the same way.
struct StoredSpaceName: Sendable, Hashable, CustomStringConvertible {
    /// The namespace whose copy this is; `nil` for the default namespace's (the bare name).
    let namespace: String?
    /// The registered space's name (`journal`).
    let space: String

    /// The name of `namespace`'s copy of `space` (`nil`: the default namespace's).
    init(_ space: String, in namespace: String?) {
        self.space = space
        self.namespace = namespace
    }

    /// The parts of a name as stored.
    init(parsing stored: String) {
        guard let slash = stored.utf8.firstIndex(of: Self.separator) else {
            self.init(stored, in: nil)
            return
        }
        self.init(String(Self.spaceName(in: stored)), in: String(stored[..<slash]))
    }

    /// The name as stored.
    var description: String { Self.qualified(space, in: namespace) }

    /// `name` (a space's or an index group's) as `namespace` stores it.
    static func qualified(_ name: String, in namespace: String?) -> String {
        guard let namespace else { return name }
        return namespace + "/" + name
    }

    /// The registered space's name in `stored`, without copying it (`journal` in `team-a/journal`):
    /// asked on every write of a memory store.
    static func spaceName(in stored: String) -> Substring {
        guard let slash = stored.utf8.lastIndex(of: separator) else { return stored[...] }
        return stored[stored.utf8.index(after: slash)...]
    }

    /// A SQL `LIKE` pattern that matches every namespace's copy of `space` (not the default's, which
    /// is `space` itself); `_` and `%` in the name match only themselves.
    static func copiesPattern(of space: String) -> String {
        var escaped = ""
        for character in space {
            if character == "_" || character == "%" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return "%/" + escaped
    }

    private static let separator = UInt8(ascii: "/")
}
