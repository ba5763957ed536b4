import Foundation

/// Generated keys parsed once per process, by `kid` (parsing a PEM costs milliseconds). A `kid` is
/// random and never reused, so an entry never goes stale; past its capacity the cache starts over.
final class KeyCache: Sendable {
    /// More than a roster holds, so a steady roster is parsed once.
    private let keys = BoundedCache<String, SigningKey>(capacity: 4 * KeyRoster.capacity)

    /// The parsed key for `kid`, parsing `pem` on the first call.
    func key(_ kid: String, pem: () async throws -> String?) async throws -> SigningKey? {
        if let known = keys[kid] { return known }
        guard let pem = try await pem() else { return nil }
        let key = try SigningKey(kid: kid, pem: pem)
        keys.insert(key, for: kid)
        return key
    }
}
