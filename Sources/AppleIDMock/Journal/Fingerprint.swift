import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How secrets, tokens and codes appear in logs and the journal: the first 8 hex digits of their
/// SHA-256, enough to match two sightings of one value and useless to replay it.
enum Fingerprint {
    /// The fingerprint of `value`.
    static func of(_ value: String) -> String {
        SHA256.hash(data: Data(value.utf8)).prefix(4).lowercaseHex
    }

    /// The parameters whose values are secret: never logged or journaled in clear.
    static let secretParameters: Set<String> = [
        "client_secret", "code", "refresh_token", "token", "code_verifier", "id_token", "access_token",
        "client_assertion", "password", "transfer_sub",
    ]

    /// A query string with every secret parameter's value replaced by its fingerprint
    /// (`code=sha256:1a2b3c4d`), whatever the case of its name (`Client_Secret` is one a client
    /// mistyped, still a secret); other parameters are kept as sent.
    static func redactingQuery(_ query: String) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { field in
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = FormParameters.decode(parts[0]) ?? String(parts[0])
            guard secretParameters.contains(name.lowercased()), parts.count == 2 else { return String(field) }
            return "\(parts[0])=sha256:\(of(FormParameters.decode(parts[1]) ?? String(parts[1])))"
        }.joined(separator: "&")
    }
}
