/// The token endpoint's success body (reference §2.3): no `refresh_token` or `id_token` key when absent.
struct TokenResponse: AppleJSONObject, Sendable {
    var accessToken: String
    var tokenType = "Bearer"
    var expiresIn: Int
    var refreshToken: String?
    var idToken: String?

    /// The JSON names of the fields.
    private enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case refreshToken = "refresh_token"
        case idToken = "id_token"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(accessToken, forKey: .accessToken)
        try container.encode(tokenType, forKey: .tokenType)
        try container.encode(expiresIn, forKey: .expiresIn)
        try container.encodeIfPresent(refreshToken, forKey: .refreshToken)
        try container.encodeIfPresent(idToken, forKey: .idToken)
    }

    /// The members in the order of their keys' bytes, as `encode(to:)` under `.sortedKeys` writes them.
    func writeMembers(to writer: inout AppleJSONWriter) {
        writer.member("access_token", accessToken)
        writer.member("expires_in", expiresIn)
        writer.member("id_token", idToken)
        writer.member("refresh_token", refreshToken)
        writer.member("token_type", tokenType)
    }
}
