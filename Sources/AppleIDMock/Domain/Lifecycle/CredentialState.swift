/// What an app sees for a user id (`ASAuthorizationAppleIDProvider.getCredentialState`).
enum CredentialState: String, Sendable, Codable {
    case authorized
    case revoked
    case notFound
    case transferred
}
