#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The signing keys once the control plane changed them: which keys exist, which are published in
/// `/auth/keys` (and until when), and which one signs. Pure rules; `MockState` stores the result.
struct KeyRoster: Codable, Sendable, Equatable {
    /// One key of the roster.
    struct Entry: Codable, Sendable, Equatable {
        /// Where the private half lives.
        enum Origin: String, Codable, Sendable {
            /// A PEM file in `keys/signing/`.
            case bundled
            /// Made by `POST /__admin/keys/rotate`; the private half is in the store.
            case generated
        }

        var kid: String
        var origin: Origin
        /// Whether the key is in the JWKS (until `retiresAt`, if set).
        var published: Bool
        /// When it was made (mock clock); `nil` for bundled keys.
        var createdAt: Date?
        /// When it leaves the JWKS (mock clock): the end of its grace period after a rotation.
        var retiresAt: Date?

        /// Whether the key is in the JWKS at `now`.
        func isPublished(at now: Date) -> Bool {
            published && (retiresAt.map { now < $0 } ?? true)
        }
    }

    /// Why a change to the roster was refused.
    struct Refusal: Error, Sendable {
        /// Whether the key named does not exist (404) or the change does not apply (409).
        var unknownKey: Bool
        var message: String
        /// The capacity, when the roster is full.
        var limit: Int?
    }

    /// The most keys a roster holds; a rotation first drops keys whose grace period ended.
    static let capacity = 12

    /// Every key, oldest first.
    var entries: [Entry]
    /// The key that signs id_tokens and notifications.
    var signingKid: String

    /// The bundled keys, all published, with `signingKid` signing.
    static func bundled(_ ring: SigningKeyRing, signingKid: String) -> KeyRoster {
        KeyRoster(
            entries: ring.keys.map { Entry(kid: $0.kid, origin: .bundled, published: true) }, signingKid: signingKid)
    }

    /// The bundled keys, all published, signing with `settings.signingKeyId` or the first by name:
    /// the keys before the control plane changes any.
    static func bundled(_ ring: SigningKeyRing, settings: MockSettings) -> KeyRoster {
        bundled(ring, signingKid: settings.signingKeyId.flatMap(ring.key)?.kid ?? ring.keys[0].kid)
    }

    /// The same roster with every `kid` renamed by `rename` (a namespace's bundled keys).
    func renamed(_ rename: (String) -> String) -> KeyRoster {
        var roster = self
        for index in roster.entries.indices { roster.entries[index].kid = rename(roster.entries[index].kid) }
        roster.signingKid = rename(signingKid)
        return roster
    }

    /// The entry for `kid`, or a refusal naming the keys there are.
    func entry(_ kid: String) throws(Refusal) -> Entry {
        guard let entry = entries.first(where: { $0.kid == kid }) else {
            throw Refusal(
                unknownKey: true,
                message: "no key \"\(kid)\"; keys: \(entries.map(\.kid).joined(separator: ", "))")
        }
        return entry
    }

    /// Adds `kid` (published unless `publish` is false) and signs with it; the keys published until
    /// now stay in the JWKS for `grace` on the mock's clock. Keys whose grace period has ended are
    /// dropped; returns the generated ones dropped (their private halves go too).
    mutating func rotate(to kid: String, now: Date, grace: TimeInterval, publish: Bool) throws(Refusal)
        -> [String]
    {
        let dropped = entries.filter { entry in
            entry.origin == .generated && entry.kid != signingKid && (entry.retiresAt.map { $0 <= now } ?? false)
        }.map(\.kid)
        entries.removeAll { dropped.contains($0.kid) }
        guard entries.count < Self.capacity else {
            throw Refusal(
                unknownKey: false,
                message:
                    "at most \(Self.capacity) keys; delete one first (DELETE /__admin/keys/{kid}) or restore the bundled keys (DELETE /__admin/keys)",
                limit: Self.capacity)
        }
        // Within the instants the mock's clock can show (a grace period from 9999 would not be).
        let retiresAt = min(now.addingTimeInterval(grace), MockClock.validRange.upperBound)
        for index in entries.indices where entries[index].published && entries[index].retiresAt == nil {
            entries[index].retiresAt = retiresAt
        }
        entries.append(Entry(kid: kid, origin: .generated, published: publish, createdAt: now))
        signingKid = kid
        return dropped
    }

    /// Puts `kid` in the JWKS with no end date.
    mutating func publish(_ kid: String) throws(Refusal) {
        _ = try entry(kid)
        update(kid) {
            $0.published = true
            $0.retiresAt = nil
        }
    }

    /// Takes `kid` out of the JWKS (it may still sign: a backend then meets an unknown `kid`).
    mutating func unpublish(_ kid: String) throws(Refusal) {
        _ = try entry(kid)
        update(kid) {
            $0.published = false
            $0.retiresAt = nil
        }
    }

    /// Gives `kid` the name `newKid` (a namespace's own for a shared key), signing under it if it
    /// signed; nothing else of the entry changes.
    mutating func rename(_ kid: String, to newKid: String) throws(Refusal) {
        _ = try entry(kid)
        update(kid) { $0.kid = newKid }
        if signingKid == kid { signingKid = newKid }
    }

    /// Signs with `kid` from now on, published or not. A published key that was retiring stays
    /// published while it signs, as Apple's signing key does (the next rotation retires it).
    mutating func sign(with kid: String) throws(Refusal) {
        _ = try entry(kid)
        signingKid = kid
        update(kid) { $0.retiresAt = nil }
    }

    /// Removes a generated key that does not sign.
    mutating func delete(_ kid: String) throws(Refusal) {
        let entry = try entry(kid)
        guard entry.origin == .generated else {
            throw Refusal(unknownKey: false, message: "\(kid) is a bundled key: unpublish it instead")
        }
        guard kid != signingKid else {
            throw Refusal(unknownKey: false, message: "\(kid) signs: sign with another key first")
        }
        entries.removeAll { $0.kid == kid }
    }

    private mutating func update(_ kid: String, _ change: (inout Entry) -> Void) {
        for index in entries.indices where entries[index].kid == kid { change(&entries[index]) }
    }
}
