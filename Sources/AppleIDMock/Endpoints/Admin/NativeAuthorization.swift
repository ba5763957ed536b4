#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A native sign-in without a device (`POST /__admin/native/authorize`): the JSON body names the
/// bundle id, the user and what is requested; the answer is what `ASAuthorizationAppleIDCredential`
/// hands the iOS app, i.e. what the app then sends its backend.
struct NativeAuthorizationRequest: Sendable {
    /// How the app asked for the credential.
    enum Flow: String, Sendable, CaseIterable {
        /// `ASAuthorizationAppleIDProvider().createRequest()`: the scopes the app asks for.
        case signIn
        /// The account modification extension's `getSignInWithAppleUpgradeAuthorization(state:nonce:)`
        /// (WWDC20): an existing password account moved to Sign in with Apple. It takes no scopes, so
        /// the credential has no email or name, and the id_token's email follows the no-scope rule.
        case upgrade
    }

    var flow: Flow
    var clientId: String
    /// A user key, email, `sub` or relay address (optional when `userId` is given).
    var user: String?
    /// A user id the app already knows (`request.user`): after an app transfer, the old team's id
    /// returns the new one during the migration window.
    var userId: String?
    var scopes: [String]
    var nonce: String?
    var state: String?
    /// Hide My Email at first consent (default: the scenario's choice for the user).
    var hideEmail: Bool?

    static let fieldNames: Set<String> = [
        "flow", "clientId", "user", "userId", "scopes", "nonce", "state", "hideEmail",
    ]

    /// Reads the JSON body, reporting each bad field with its path.
    static func read(_ value: JSONValue, reader: inout JSONReader) -> NativeAuthorizationRequest? {
        let root = JSONPath.root
        guard let members = reader.object(value, at: root, allowed: fieldNames) else { return nil }
        let flowName = members["flow"].flatMap {
            reader.choice($0, at: root.member("flow"), of: Flow.allCases.map(\.rawValue))
        }
        let flow = flowName.flatMap(Flow.init(rawValue:)) ?? .signIn
        if flow == .upgrade {
            for field in ["scopes", "hideEmail"] where members[field] != nil {
                reader.report(
                    root.member(field),
                    "an upgrade takes no scopes (getSignInWithAppleUpgradeAuthorization has none): leave \(field) out")
            }
        }
        let clientId = reader.required(members, "clientId", at: root).flatMap {
            reader.string($0, at: root.member("clientId"))
        }
        let userId = members["userId"].flatMap { reader.string($0, at: root.member("userId")) }
        let user =
            userId != nil && members["user"] == nil
            ? nil : reader.required(members, "user", at: root).flatMap { reader.string($0, at: root.member("user")) }
        var scopes: [String] = []
        if let raw = members["scopes"], let items = reader.array(raw, at: root.member("scopes")) {
            for (index, item) in items.enumerated() {
                if let scope = reader.choice(item, at: root.member("scopes").index(index), of: ["name", "email"]) {
                    scopes.append(scope)
                }
            }
        }
        let nonce = members["nonce"].flatMap { reader.string($0, at: root.member("nonce")) }
        let state = members["state"].flatMap { reader.string($0, at: root.member("state")) }
        let hide = members["hideEmail"].flatMap { reader.bool($0, at: root.member("hideEmail")) }
        guard let clientId, user != nil || userId != nil else { return nil }
        return NativeAuthorizationRequest(
            flow: flow, clientId: clientId, user: user, userId: userId, scopes: Array(Set(scopes)).sorted(),
            nonce: nonce,
            state: state,
            hideEmail: hide)
    }
}

/// `ASAuthorizationAppleIDCredential` as JSON: `email` and `fullName` only on the first authorization.
struct NativeCredential: Sendable, Encodable {
    /// `PersonNameComponents` as the app encodes it.
    struct FullName: Sendable, Encodable {
        var givenName: String?
        var familyName: String?
    }

    /// The team-scoped user id.
    var user: String
    var state: String?
    var authorizedScopes: [String]
    var authorizationCode: String
    var identityToken: String
    var email: String?
    var fullName: FullName?
    /// `ASUserDetectionStatus`: 0 unsupported, 1 unknown, 2 likely real.
    var realUserStatus: Int

    /// The JSON names of the fields.
    private enum CodingKeys: String, CodingKey {
        case user, state, authorizedScopes, authorizationCode, identityToken, email, fullName, realUserStatus
    }

    /// Absent values are written as `null`, as a Swift app encoding the credential would.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(user, forKey: .user)
        try container.encode(state, forKey: .state)
        try container.encode(authorizedScopes, forKey: .authorizedScopes)
        try container.encode(authorizationCode, forKey: .authorizationCode)
        try container.encode(identityToken, forKey: .identityToken)
        try container.encode(email, forKey: .email)
        try container.encode(fullName, forKey: .fullName)
        try container.encode(realUserStatus, forKey: .realUserStatus)
    }
}
