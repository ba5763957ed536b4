#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Encodes and signs identity tokens and notification JWTs (compact JWS, Apple's header).
enum TokenMinter {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    /// `payload` as a compact JWS signed with `key`.
    static func sign(_ payload: some Encodable, with key: SigningKey) throws -> String {
        try key.sign(payload: try encoder.encode(payload))
    }

    /// `payload` as a compact JWS signed with `key`, its JSON written without the encoder (the same bytes).
    static func sign(_ payload: some AppleJSONObject, with key: SigningKey) throws -> String {
        try key.sign(payload: Data(payload.appleJSON))
    }

    /// `payload` as JSON bytes, as it is signed: Apple's JSON (sorted keys, `/` unescaped), also
    /// for answers and form fields.
    static func encode(_ payload: some Encodable) throws -> Data {
        try encoder.encode(payload)
    }
}
