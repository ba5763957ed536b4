#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The rules for making, changing and removing a namespace, apart from the store: the limit, a
/// tag shared with another namespace, a `client_id` claimed twice, what `NamespaceOptions` change
/// in a record, and when a namespace is idle.
enum NamespaceRules {
    /// The most namespaces besides the default.
    static let limit = 1000

    /// Refuses making the namespace `name` when there are `count` already, or when its tag is
    /// already the namespace `tagOwner`'s.
    static func refuseMaking(_ name: String, count: Int, tagOwner: String?) throws(ControlRefusal) {
        guard count < limit else {
            throw ControlRefusal.limitReached(
                "there are \(limit) namespaces already; delete one, or let the idle ones expire", limit: limit)
        }
        if let tagOwner, tagOwner != name {
            throw ControlRefusal.notApplicable(
                "the namespace \"\(name)\" would share its token tag with \"\(tagOwner)\"; choose another name")
        }
    }

    /// Refuses `clients` for the namespace `name` when another of `records` claims one of them: a
    /// `client_id` belongs to one namespace.
    static func refuseClaims(
        _ clients: [String]?, for name: String, records: some Sequence<(key: String, value: NamespaceRecord)>
    ) throws(ControlRefusal) {
        guard let clients, !clients.isEmpty else { return }
        for (other, record) in records where other != name {
            if let client = clients.first(where: record.clients.contains) {
                throw ControlRefusal.notApplicable(
                    "client_id \"\(client)\" is claimed by the namespace \"\(other)\"; a client_id belongs to one namespace"
                )
            }
        }
    }

    /// The record of the namespace `name` after `options`, used at `now` (`existing`: its record,
    /// `nil` for a new one).
    static func record(
        _ existing: NamespaceRecord?, name: String, options: NamespaceOptions, now: Date
    ) -> NamespaceRecord {
        var record =
            existing
            ?? NamespaceRecord(
                name: name, clients: [], idleTtlSeconds: NamespaceOptions.defaultIdleTtlSeconds, createdAt: now,
                lastUsedAt: now)
        if let clients = options.clients { record.clients = clients }
        if let ttl = options.idleTtlSeconds { record.idleTtlSeconds = ttl }
        record.lastUsedAt = now
        return record
    }

    /// The control record a new namespace starts with: the initial scenario, its own identities.
    static func newControl(initialScenario: String) -> ControlState {
        var control = ControlState(scenario: initialScenario)
        control.identities = .own
        return control
    }

    /// Whether `record` is unused for longer than its idle time at `now`.
    static func isIdle(_ record: NamespaceRecord, at now: Date) -> Bool {
        now.timeIntervalSince(record.lastUsedAt) > Double(record.idleTtlSeconds)
    }
}
