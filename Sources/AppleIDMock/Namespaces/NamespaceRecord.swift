#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A namespace as the default namespace's store lists it (`Spaces.namespaces`): when it was made
/// and last used (wall clock), the `client_id`s it claims, and how long it may stay idle. Its
/// scenario, settings and identities are in its own control record.
struct NamespaceRecord: Codable, Sendable, Equatable {
    var name: String
    /// The `client_id`s whose calls that carry nothing the mock issued land here.
    var clients: [String]
    /// How long it may go unused before the housekeeping removes it.
    var idleTtlSeconds: Int
    var createdAt: Date
    var lastUsedAt: Date
}

/// What `PUT /__admin/namespaces/{name}` sets; an absent field keeps its value (or takes its
/// default when the namespace is new).
struct NamespaceOptions: Sendable, Equatable {
    /// The scenario to switch to (a new namespace starts with the server's initial scenario).
    var scenario: String?
    /// Whose identifiers its users have (a new namespace: its own).
    var identities: NamespaceIdentities?
    /// The `client_id`s it claims (replacing those it claimed).
    var clients: [String]?
    /// How long it may stay idle, in seconds (a new namespace: a day).
    var idleTtlSeconds: Int?

    /// The longest idle time allowed: a year.
    static let maxIdleTtlSeconds = 366 * 86_400
    /// The idle time of a namespace made without one: a day.
    static let defaultIdleTtlSeconds = 86_400
    /// The most `client_id`s one namespace claims.
    static let maxClients = 100
}
