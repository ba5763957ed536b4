import Foundation

/// Signs identity tokens and notification JWTs with the scenario's signing key.
public struct TokenMinter: Sendable {
    /// The RS256 keys.
    public let keyRing: SigningKeyRing

    public init(keyRing: SigningKeyRing) {
        self.keyRing = keyRing
    }

    /// The key that signs under `settings`: `signingKeyId`, or the first key by name.
    public func signingKey(for settings: MockSettings) -> SigningKey {
        settings.signingKeyId.flatMap(keyRing.key) ?? keyRing.keys[0]
    }

    /// `payload` as a compact JWS signed with the active key.
    public func sign(_ payload: some Encodable, settings: MockSettings) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return try signingKey(for: settings).sign(payload: try encoder.encode(payload))
    }
}
