import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The keys a request works with: the one that signs, and every key of the roster with its public
/// half, to build the JWKS at the mock's current instant.
struct ResolvedKeys: Sendable {
    /// The key that signs id_tokens and notifications.
    let signing: SigningKey
    /// Every key with its roster entry, oldest first.
    let entries: [(entry: KeyRoster.Entry, key: SigningKey)]

    /// The bundled keys of `ring` as `roster` (of bundled keys only) arranges them.
    static func bundled(_ ring: SigningKeyRing, roster: KeyRoster) -> ResolvedKeys {
        let entries = roster.entries.compactMap { entry in ring.key(entry.kid).map { (entry: entry, key: $0) } }
        return ResolvedKeys(
            signing: ring.key(roster.signingKid) ?? ring.keys[0], entries: entries)
    }

    /// The keys in `/auth/keys` at `now`.
    func published(at now: Date) -> [PublicJWK] {
        entries.filter { $0.entry.isPublished(at: now) }.map(\.key.jwk)
    }

    /// `{"keys":[…]}` at `now` as Apple's JSON, built from each key's JSON encoded once, in roster
    /// order or shuffled.
    func jwksBody(at now: Date, shuffled: Bool) -> ByteBuffer {
        var keys: [[UInt8]] = []
        keys.reserveCapacity(entries.count)
        for index in entries.indices where entries[index].entry.isPublished(at: now) {
            keys.append(entries[index].key.encodedJWK)
        }
        if shuffled {
            var random = OrderRandom()
            keys.shuffle(using: &random)
        }
        var body = ByteBuffer()
        body.reserveCapacity(12 + keys.reduce(0) { $0 + $1.count + 1 })
        body.writeString(#"{"keys":["#)
        for (index, key) in keys.enumerated() {
            if index > 0 { body.writeInteger(UInt8(ascii: ",")) }
            body.writeBytes(key)
        }
        body.writeString("]}")
        return body
    }
}
