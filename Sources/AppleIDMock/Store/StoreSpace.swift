import Foundation

/// A named family of entries in a store (consents, codes, the outbox, …) and the type of their values.
/// Every store keeps one table of `(space, key) → value`; the space says how a value is encoded.
public struct StoreSpace<Value: Codable & Sendable>: Sendable, Hashable {
    /// The name written in the store.
    public let name: String

    init(_ name: String) {
        self.name = name
    }
}

/// A space without its value type: how a store that writes bytes decodes and encodes its values.
struct AnyStoreSpace: Sendable {
    let name: String
    let decode: @Sendable (Data) throws -> any Sendable
    let encode: @Sendable (any Sendable) throws -> Data

    init<Value>(_ space: StoreSpace<Value>) {
        name = space.name
        decode = { data in try StoreCoding.decoder.decode(Value.self, from: data) }
        encode = { value in
            guard let typed = value as? Value else { throw StoreCoding.WrongType(space: space.name) }
            return try StoreCoding.encoder.encode(typed)
        }
    }
}

/// The JSON coding every durable store uses for values (dates as fractional epoch seconds).
enum StoreCoding {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()

    /// A value put in a space of another type (a programming error, reported rather than trapped).
    struct WrongType: Error, CustomStringConvertible {
        var space: String
        var description: String { "a value of the wrong type was written to space \(space)" }
    }
}

/// Every space of the mock's state.
public enum Spaces {
    /// A user's consent per app group; key `user\u{1F}group`.
    public static let consents = StoreSpace<Consent>("consent")
    /// Deleted Apple Accounts; key: the user.
    static let deletedAccounts = StoreSpace<Marker>("deleted_account")
    /// (user, group) pairs whose relay forwarding is off; key `user\u{1F}group`.
    static let relayOff = StoreSpace<Marker>("relay_off")
    /// Authorization codes; key: the code.
    public static let codes = StoreSpace<AuthorizationCodeRecord>("code")
    /// Access tokens; key: the token.
    public static let accessTokens = StoreSpace<AccessTokenRecord>("access_token")
    /// Refresh tokens; key: the token.
    public static let refreshTokens = StoreSpace<RefreshTokenRecord>("refresh_token")
    /// `client_credentials` tokens for user migration; key: the token.
    static let migrationTokens = StoreSpace<MigrationTokenRecord>("migration_token")
    /// User access tokens already spent on a migration call; key: the token.
    static let migrationSpent = StoreSpace<Marker>("migration_spent")
    /// The scenario in force, settings, clock offset and transfers; one key, `current`.
    static let control = StoreSpace<ControlState>("control")
    /// Scenarios uploaded over HTTP; key: the name.
    static let uploadedScenarios = StoreSpace<UploadedScenario>("uploaded_scenario")
    /// The lifecycle event log; key: the entry id, in insertion order.
    public static let eventLog = StoreSpace<EventLogEntry>("event_log")
    /// Server-to-server notifications and their attempts; key: the `jti`, in insertion order.
    public static let outbox = StoreSpace<NotificationRecord>("outbox")

    /// The spaces a reset or scenario switch empties.
    static let session: [String] = [
        consents.name, deletedAccounts.name, relayOff.name, codes.name, accessTokens.name, refreshTokens.name,
        migrationTokens.name, migrationSpent.name, eventLog.name, outbox.name,
    ]

    /// Every space, for stores that decode rows by space name.
    static let all: [String: AnyStoreSpace] = Dictionary(
        uniqueKeysWithValues: [
            AnyStoreSpace(consents), AnyStoreSpace(deletedAccounts), AnyStoreSpace(relayOff), AnyStoreSpace(codes),
            AnyStoreSpace(accessTokens), AnyStoreSpace(refreshTokens), AnyStoreSpace(migrationTokens),
            AnyStoreSpace(migrationSpent), AnyStoreSpace(control), AnyStoreSpace(uploadedScenarios),
            AnyStoreSpace(eventLog), AnyStoreSpace(outbox),
        ].map { ($0.name, $0) })
}

/// A value that only says "present" (a deleted account, relay forwarding off, a spent token).
struct Marker: Codable, Sendable, Equatable {
    var at: Date
}

/// A scenario file uploaded over HTTP, kept as sent so every replica parses the same text.
struct UploadedScenario: Codable, Sendable {
    var json: String
}
