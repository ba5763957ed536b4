import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Derives Apple-shaped identifiers from stable inputs with HMAC-SHA256, so the same scenario gives
/// the same `sub` and relay addresses on every run and every machine.
enum IdentifierDerivation {
    /// The team-scoped user id, `NNNNNN.<32 lowercase hex>.NNNN`, for a user key and team.
    static func subject(userKey: String, teamId: String) -> String {
        let bytes = digest(purpose: "sub", teamId, userKey)
        let prefix = number(bytes[0..<4]) % 1_000_000
        let middle = bytes[4..<20].lowercaseHex
        let suffix = number(bytes[20..<24]) % 10_000
        return prefix.zeroPadded(6) + "." + middle + "." + suffix.zeroPadded(4)
    }

    /// The user's relay address for a team: 10 lowercase alphanumerics `@` the relay domain
    /// (`privaterelay.appleid.com` unless the setting `relayDomain` says otherwise).
    static func relayEmail(
        userKey: String, teamId: String, domain: MockSettings.RelayDomain = .privaterelay
    ) -> String {
        relayLocalPart(userKey: userKey, teamId: teamId) + "@" + domain.rawValue
    }

    /// The part of the user's relay address for a team before the `@`: the same in every relay domain.
    static func relayLocalPart(userKey: String, teamId: String) -> String {
        token(purpose: "relay", length: 10, teamId, userKey)
    }

    /// A deterministic lowercase alphanumeric string of `length` characters.
    static func token(purpose: String, length: Int, _ parts: String...) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        let bytes = digest(purpose: purpose, parts)
        return String(bytes.prefix(length).map { alphabet[Int($0) % alphabet.count] })
    }

    private static func digest(purpose: String, _ parts: String...) -> [UInt8] {
        digest(purpose: purpose, parts)
    }

    private static func digest(purpose: String, _ parts: [String]) -> [UInt8] {
        let key = SymmetricKey(data: Data("apple-id-mock/\(purpose)".utf8))
        let message = Data(parts.joined(separator: "\u{0}").utf8)
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }
}
