#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A namespace as the control plane shows it: its record, its scenario and identities (from its
/// control record), and how many entries it holds in the spaces a tester watches.
struct NamespaceView: Encodable, Sendable {
    var name: String
    var scenario: String
    var identities: NamespaceIdentities
    var clients: [String]
    /// `nil` for the default namespace, which never expires.
    var idleTtlSeconds: Int?
    var createdAt: String?
    var lastUsedAt: String?
    /// The path prefix of its URLs.
    var pathPrefix: String
    /// Entries per space: consents, journal, notifications, events, mail.
    var counts: [String: Int]

    /// The spaces counted, by the name shown: those the registry gives a name to show.
    static let countedSpaces: [(shown: String, space: String)] = Spaces.registered.compactMap { space in
        space.shown.map { ($0, space.name) }
    }
}
