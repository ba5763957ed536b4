import Synchronization

/// Finds the namespace of a key that comes back without naming it, with one index per kind of key:
/// the tag its codes and tokens carry, the `client_id`s it claims, its users' relay addresses and
/// their `transfer_sub`s. Filled from the namespace records (`NamespaceRecordCache`) and from each
/// world as it is built (`MockState.current`); a lookup reads one entry, however many namespaces
/// there are. The tag index also tells the default namespace its own values from another
/// namespace's in the spaces they share (`owns`).
final class NamespaceLocator: Sendable {
    /// What one namespace's world put in the identity indexes.
    private struct Indexed {
        var inputs: NamespaceIdentityKeys.Inputs
        var keys: NamespaceIdentityKeys
        /// The control record the world was built from; `nil` once it changed here (built again on
        /// the next miss).
        var control: ControlState?
    }

    /// The indexes, changed together.
    private struct Indexes {
        var tags: [UInt32: String] = [:]
        var clients: [String: String] = [:]
        var relays: [String: String] = [:]
        var transfers: [String: String] = [:]
        var identities: [String: Indexed] = [:]
        /// The namespaces whose world is not indexed, or changed here since: a miss builds them
        /// (kept as a set, so that a miss does not go through every namespace to find them).
        var pending: Set<String> = []

        /// Drops what the world of `name` put in the identity indexes.
        mutating func dropIdentities(of name: String) {
            pending.remove(name)
            guard let old = identities.removeValue(forKey: name) else { return }
            for key in old.keys.relayLocalParts where relays[key] == name { relays[key] = nil }
            for key in old.keys.transferSubs where transfers[key] == name { transfers[key] = nil }
        }
    }

    private let indexes = Mutex(Indexes())

    // MARK: - Lookups

    /// The namespace whose values carry `tag`.
    func name(ofTag tag: UInt32) -> String? {
        indexes.withLock { $0.tags[tag] }
    }

    /// Whether a namespace other than the default exists.
    var hasNamespaces: Bool {
        indexes.withLock { !$0.tags.isEmpty }
    }

    /// The namespace claiming `clientId`.
    func name(claiming clientId: String) -> String? {
        indexes.withLock { $0.clients[clientId] }
    }

    /// The namespace with its own identities one of whose users has the relay address `address`,
    /// as far as the worlds indexed here say.
    func name(ofRelayAddress address: String) -> String? {
        guard let key = NamespaceIdentityKeys.relayKey(of: address) else { return nil }
        return indexes.withLock { $0.relays[key] }
    }

    /// The namespace with its own identities one of whose users has `transferSub`, as far as the
    /// worlds indexed here say.
    func name(ofTransferSub transferSub: String) -> String? {
        indexes.withLock { $0.transfers[transferSub] }
    }

    /// Whether a value carrying `tag` belongs to the namespace `scope`: its own tag, or for the
    /// default namespace any tag no other namespace has (values minted before namespaces existed).
    func owns(_ scope: NamespaceScope, tag: UInt32) -> Bool {
        if tag == scope.tag { return true }
        guard scope.isDefault else { return false }
        return name(ofTag: tag) == nil
    }

    // MARK: - Records

    /// Replaces the tags and claims with those of `records`; the identities of namespaces not among
    /// them are dropped.
    func replace(with records: [NamespaceRecord]) {
        var tags: [UInt32: String] = [:]
        var clients: [String: String] = [:]
        for record in records {
            let tag = NamespaceScope(name: record.name).tag
            if tags[tag] == nil { tags[tag] = record.name }
            for client in record.clients { clients[client] = record.name }
        }
        let names = Set(records.map(\.name))
        indexes.withLock { indexes in
            indexes.tags = tags
            indexes.clients = clients
            for name in indexes.identities.keys where !names.contains(name) { indexes.dropIdentities(of: name) }
            indexes.pending = names.filter { indexes.identities[$0]?.control == nil }
        }
    }

    /// Adds the namespace of `record`, or changes its claims (`previous`: the record it replaces).
    func insert(_ record: NamespaceRecord, replacing previous: NamespaceRecord?) {
        let tag = NamespaceScope(name: record.name).tag
        indexes.withLock { indexes in
            indexes.tags[tag] = record.name
            for client in previous?.clients ?? [] where indexes.clients[client] == record.name {
                indexes.clients[client] = nil
            }
            for client in record.clients { indexes.clients[client] = record.name }
            if indexes.identities[record.name]?.control == nil { indexes.pending.insert(record.name) }
        }
    }

    /// Adds the tag of `scope` alone (a namespace whose record is not at hand).
    func insert(_ scope: NamespaceScope) {
        indexes.withLock { $0.tags[scope.tag] = scope.name }
    }

    /// Forgets the namespace `name` (`record`: its record as last known) in every index.
    func remove(_ name: String, record: NamespaceRecord?) {
        let tag = NamespaceScope(name: name).tag
        indexes.withLock { indexes in
            if indexes.tags[tag] == name { indexes.tags[tag] = nil }
            for client in record?.clients ?? [] where indexes.clients[client] == name { indexes.clients[client] = nil }
            indexes.dropIdentities(of: name)
        }
    }

    // MARK: - Identities

    /// Indexes the relay addresses and `transfer_sub`s of `world`, the namespace `name`'s world
    /// built from `control` (derived again only when its users, teams or transfers changed).
    func index(_ world: World, control: ControlState, of name: String) {
        let inputs = NamespaceIdentityKeys.Inputs(world)
        let unchanged = indexes.withLock { indexes in
            guard indexes.identities[name]?.inputs == inputs else { return false }
            indexes.identities[name]?.control = control
            indexes.pending.remove(name)
            return true
        }
        guard !unchanged else { return }
        let keys = NamespaceIdentityKeys(world)
        indexes.withLock { indexes in
            indexes.dropIdentities(of: name)
            for key in keys.relayLocalParts { indexes.relays[key] = name }
            for key in keys.transferSubs { indexes.transfers[key] = name }
            indexes.identities[name] = Indexed(inputs: inputs, keys: keys, control: control)
            indexes.pending.remove(name)
        }
    }

    /// Notes that the control record of `name` changed here: its world is built and indexed again
    /// on the next miss (its entries stay until then; a hit is checked on the namespace's world).
    func controlChanged(_ name: String) {
        indexes.withLock { indexes in
            indexes.identities[name]?.control = nil
            indexes.pending.insert(name)
        }
    }

    /// The namespaces whose world is not indexed, or whose control record changed here since.
    var pending: Set<String> {
        indexes.withLock { $0.pending }
    }

    /// Of `names`, those whose world is not indexed as built from the control record each has in
    /// `controls` (`nil`: none), or is pending.
    func unindexed(_ names: [String], controls: [ControlState?]) -> [String] {
        indexes.withLock { indexes in
            names.indices.compactMap { index in
                let name = names[index]
                guard let indexed = indexes.identities[name]?.control, let control = controls[index] else {
                    return name
                }
                return control == indexed ? nil : name
            }
        }
    }
}
