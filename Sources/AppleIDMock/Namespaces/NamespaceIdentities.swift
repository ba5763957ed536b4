/// Whose identifiers a namespace's users have.
enum NamespaceIdentities: String, Codable, Sendable, CaseIterable {
    /// The namespace's name is mixed into every `sub`, relay address and `transfer_sub`: one shared
    /// backend sees different accounts in each namespace (the default for a created namespace).
    case own
    /// The default namespace's identifiers (for a backend per namespace).
    case shared
}
