/// One setting as the reader and its checks know it: its JSON name, the values it takes, and where
/// it lives in `MockSettings`. `MockSettings.table` lists every setting once; the scenario reader
/// and `PATCH /__admin/settings` apply it, and a test holds the JSON Schema and the OpenAPI document
/// (from which the dashboard builds its fields) to it, ranges and choices included.
struct SettingField: Sendable {
    /// The values a setting takes.
    enum Kind: Sendable, Equatable {
        /// A whole number in a range.
        case integer(ClosedRange<Int>)
        /// `true` or `false`.
        case flag
        /// One of these strings.
        case choice([String])
        /// A string, or `null` for the default.
        case optionalString
    }

    /// The JSON name.
    let name: String
    let kind: Kind
    /// Reads the member's value into `settings`, reporting a bad one to `reader`.
    let apply: @Sendable (inout MockSettings, JSONValue, JSONPath, inout JSONReader) -> Void

    /// A whole number in `range`.
    static func integer(
        _ name: String, _ range: ClosedRange<Int>, _ keyPath: WritableKeyPath<MockSettings, Int> & Sendable
    ) -> SettingField {
        SettingField(name: name, kind: .integer(range)) { settings, raw, path, reader in
            if let number = reader.integer(raw, at: path, in: range) { settings[keyPath: keyPath] = number }
        }
    }

    /// A flag.
    static func flag(_ name: String, _ keyPath: WritableKeyPath<MockSettings, Bool> & Sendable) -> SettingField {
        SettingField(name: name, kind: .flag) { settings, raw, path, reader in
            if let value = reader.bool(raw, at: path) { settings[keyPath: keyPath] = value }
        }
    }

    /// One of the cases of `T`.
    static func choice<T: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ keyPath: WritableKeyPath<MockSettings, T> & Sendable
    ) -> SettingField where T.RawValue == String {
        let choices = T.allCases.map(\.rawValue)
        return SettingField(name: name, kind: .choice(choices)) { settings, raw, path, reader in
            if let text = reader.choice(raw, at: path, of: choices), let value = T(rawValue: text) {
                settings[keyPath: keyPath] = value
            }
        }
    }

    /// A string or `null`.
    static func optionalString(_ name: String, _ keyPath: WritableKeyPath<MockSettings, String?> & Sendable)
        -> SettingField
    {
        SettingField(name: name, kind: .optionalString) { settings, raw, path, reader in
            if raw == .null {
                settings[keyPath: keyPath] = nil
            } else if let text = reader.string(raw, at: path) {
                settings[keyPath: keyPath] = text
            }
        }
    }
}

extension MockSettings {
    /// Every setting, once, in the order the reader checks them.
    static let table: [SettingField] = [
        .integer("idTokenLifetimeSeconds", 1...31_536_000, \.idTokenLifetimeSeconds),
        .integer("codeLifetimeSeconds", 1...86_400, \.codeLifetimeSeconds),
        .integer("accessTokenLifetimeSeconds", 1...31_536_000, \.accessTokenLifetimeSeconds),
        .integer("clientSecretIatLeewaySeconds", 0...86_400, \.clientSecretIatLeewaySeconds),
        .choice("booleanClaimStyle", \.booleanClaimStyle),
        .choice("refreshIdTokenClaims", \.refreshIdTokenClaims),
        .choice("pkce", \.pkce),
        .choice("wrongContentTypeError", \.wrongContentTypeError),
        .choice("jwksOrder", \.jwksOrder),
        .choice("discoveryIssuer", \.discoveryIssuer),
        .choice("notificationDeleteType", \.notificationDeleteType),
        .choice("notificationEventTimeUnit", \.notificationEventTimeUnit),
        .flag("notifyOnRevokeEndpoint", \.notifyOnRevokeEndpoint),
        .choice("revokeRefreshTokenParameter", \.revokeRefreshTokenParameter),
        .integer("notificationMaxAttempts", 1...1_000, \.notificationMaxAttempts),
        .integer("notificationRetryInitialMilliseconds", 1...3_600_000, \.notificationRetryInitialMilliseconds),
        .integer("notificationRetryMaxMilliseconds", 1...3_600_000, \.notificationRetryMaxMilliseconds),
        .integer("notificationTimeoutMilliseconds", 1...600_000, \.notificationTimeoutMilliseconds),
        .integer("migrationWindowDays", 1...3_650, \.migrationWindowDays),
        .integer("historyLimit", 10...100_000, \.historyLimit),
        .integer("journalLimit", 10...100_000, \.journalLimit),
        .integer("keyGraceSeconds", 0...31_536_000, \.keyGraceSeconds),
        .integer("mailDailyLimit", 1...100_000, \.mailDailyLimit),
        .integer("mailboxMaxBytes", 1_048_576...1_073_741_824, \.mailboxMaxBytes),
        .flag("mailRequireDkimSignature", \.mailRequireDkimSignature),
        .choice("mailUnregisteredSenders", \.mailUnregisteredSenders),
        .choice("nativeEmptyRedirectUri", \.nativeEmptyRedirectUri),
        .choice("relayDomain", \.relayDomain),
        .flag("omitIsPrivateEmailWhenFalse", \.omitIsPrivateEmailWhenFalse),
        .flag("refreshReturnsIdToken", \.refreshReturnsIdToken),
        .flag("requireHttpsRedirectUris", \.requireHttpsRedirectUris),
        .optionalString("signingKeyId", \.signingKeyId),
    ]
}
