import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Apple's `/.well-known/openid-configuration`, field for field (reference §5), with the endpoint
/// URLs on this server. The issuer is `https://appleid.apple.com`, which tokens carry, unless the
/// `discoveryIssuer` setting replays Apple's June 2025 drift.
struct DiscoveryDocument: Encodable, Sendable {
    var issuer = "https://appleid.apple.com"
    var authorizationEndpoint: String
    var tokenEndpoint: String
    var revocationEndpoint: String
    var jwksUri: String
    var responseTypesSupported = ["code"]
    var responseModesSupported = ["query", "fragment", "form_post"]
    var subjectTypesSupported = ["pairwise"]
    var idTokenSigningAlgValuesSupported = ["RS256"]
    var scopesSupported = ["openid", "email", "name"]
    var tokenEndpointAuthMethodsSupported = ["client_secret_post"]
    var claimsSupported = [
        "aud", "email", "email_verified", "exp", "iat", "is_private_email", "iss", "nonce", "nonce_supported",
        "real_user_status", "sub", "transfer_sub",
    ]

    init(baseURL: String, issuer: String = "https://appleid.apple.com") {
        self.issuer = issuer
        authorizationEndpoint = baseURL + ApplePath.absolute(ApplePath.authorize)
        tokenEndpoint = baseURL + ApplePath.absolute(ApplePath.token)
        revocationEndpoint = baseURL + ApplePath.absolute(ApplePath.revoke)
        jwksUri = baseURL + ApplePath.absolute(ApplePath.keys)
    }

    /// The document as Apple sends it: compact JSON with the fields in Apple's order (§5), not
    /// sorted as the mock's other JSON is.
    var encoded: ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let fields: [(CodingKeys, any Encodable)] = [
            (.issuer, issuer), (.authorizationEndpoint, authorizationEndpoint), (.tokenEndpoint, tokenEndpoint),
            (.revocationEndpoint, revocationEndpoint), (.jwksUri, jwksUri),
            (.responseTypesSupported, responseTypesSupported), (.responseModesSupported, responseModesSupported),
            (.subjectTypesSupported, subjectTypesSupported),
            (.idTokenSigningAlgValuesSupported, idTokenSigningAlgValuesSupported), (.scopesSupported, scopesSupported),
            (.tokenEndpointAuthMethodsSupported, tokenEndpointAuthMethodsSupported),
            (.claimsSupported, claimsSupported),
        ]
        var buffer = ByteBuffer(string: "{")
        for (position, (key, value)) in fields.enumerated() {
            if position > 0 { buffer.writeString(",") }
            buffer.writeString("\"\(key.rawValue)\":")
            buffer.writeBytes((try? encoder.encode(value)) ?? Data("null".utf8))
        }
        buffer.writeString("}")
        return buffer
    }

    /// The JSON names of the fields, in Apple's order.
    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case jwksUri = "jwks_uri"
        case responseTypesSupported = "response_types_supported"
        case responseModesSupported = "response_modes_supported"
        case subjectTypesSupported = "subject_types_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case scopesSupported = "scopes_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case claimsSupported = "claims_supported"
    }
}
