extension MockSettings {
    /// The names of every setting, as written in JSON.
    static let fieldNames: Set<String> = [
        "idTokenLifetimeSeconds", "codeLifetimeSeconds", "accessTokenLifetimeSeconds", "booleanClaimStyle",
        "omitIsPrivateEmailWhenFalse", "refreshReturnsIdToken", "refreshIdTokenClaims", "pkce",
        "clientSecretIatLeewaySeconds", "wrongContentTypeError", "requireHttpsRedirectUris", "signingKeyId",
        "jwksOrder", "notificationDeleteType", "notificationEventTimeUnit", "notifyOnRevokeEndpoint",
        "revokeRefreshTokenParameter", "notificationMaxAttempts", "notificationRetryInitialMilliseconds",
        "notificationRetryMaxMilliseconds",
        "notificationTimeoutMilliseconds", "migrationWindowDays", "historyLimit",
        "journalLimit", "keyGraceSeconds", "mailDailyLimit", "mailRequireDkimSignature",
    ]

    /// Applies the members of a JSON object over these settings, reporting bad members to `reader`.
    /// Used for a scenario's `settings` and for `PATCH /__admin/settings`.
    func applying(_ value: JSONValue, at path: JSONPath, reader: inout JSONReader) -> MockSettings {
        var result = self
        guard let members = reader.object(value, at: path, allowed: Self.fieldNames) else { return result }
        func number(_ name: String, _ range: ClosedRange<Int>, _ keyPath: WritableKeyPath<MockSettings, Int>) {
            if let raw = members[name], let number = reader.integer(raw, at: path.member(name), in: range) {
                result[keyPath: keyPath] = number
            }
        }
        func flag(_ name: String, _ keyPath: WritableKeyPath<MockSettings, Bool>) {
            if let raw = members[name], let value = reader.bool(raw, at: path.member(name)) {
                result[keyPath: keyPath] = value
            }
        }
        func option<T: RawRepresentable & CaseIterable>(_ name: String, _ keyPath: WritableKeyPath<MockSettings, T>)
        where T.RawValue == String {
            if let raw = members[name],
                let text = reader.choice(raw, at: path.member(name), of: T.allCases.map(\.rawValue)),
                let value = T(rawValue: text)
            {
                result[keyPath: keyPath] = value
            }
        }
        number("idTokenLifetimeSeconds", 1...31_536_000, \.idTokenLifetimeSeconds)
        number("codeLifetimeSeconds", 1...86_400, \.codeLifetimeSeconds)
        number("accessTokenLifetimeSeconds", 1...31_536_000, \.accessTokenLifetimeSeconds)
        number("clientSecretIatLeewaySeconds", 0...86_400, \.clientSecretIatLeewaySeconds)
        option("booleanClaimStyle", \.booleanClaimStyle)
        option("refreshIdTokenClaims", \.refreshIdTokenClaims)
        option("pkce", \.pkce)
        option("wrongContentTypeError", \.wrongContentTypeError)
        option("jwksOrder", \.jwksOrder)
        option("notificationDeleteType", \.notificationDeleteType)
        option("notificationEventTimeUnit", \.notificationEventTimeUnit)
        flag("notifyOnRevokeEndpoint", \.notifyOnRevokeEndpoint)
        option("revokeRefreshTokenParameter", \.revokeRefreshTokenParameter)
        number("notificationMaxAttempts", 1...1_000, \.notificationMaxAttempts)
        number("notificationRetryInitialMilliseconds", 1...3_600_000, \.notificationRetryInitialMilliseconds)
        number("notificationRetryMaxMilliseconds", 1...3_600_000, \.notificationRetryMaxMilliseconds)
        number("notificationTimeoutMilliseconds", 1...600_000, \.notificationTimeoutMilliseconds)
        number("migrationWindowDays", 1...3_650, \.migrationWindowDays)
        number("historyLimit", 10...100_000, \.historyLimit)
        number("journalLimit", 10...100_000, \.journalLimit)
        number("keyGraceSeconds", 0...31_536_000, \.keyGraceSeconds)
        number("mailDailyLimit", 1...100_000, \.mailDailyLimit)
        flag("mailRequireDkimSignature", \.mailRequireDkimSignature)
        flag("omitIsPrivateEmailWhenFalse", \.omitIsPrivateEmailWhenFalse)
        flag("refreshReturnsIdToken", \.refreshReturnsIdToken)
        flag("requireHttpsRedirectUris", \.requireHttpsRedirectUris)
        if let raw = members["signingKeyId"] {
            if raw == .null {
                result.signingKeyId = nil
            } else if let kid = reader.string(raw, at: path.member("signingKeyId")) {
                result.signingKeyId = kid
            }
        }
        return result
    }
}
