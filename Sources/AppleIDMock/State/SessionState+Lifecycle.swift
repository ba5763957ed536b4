import Foundation

/// What an app sees for a user id (`ASAuthorizationAppleIDProvider.getCredentialState`).
public enum CredentialState: String, Sendable, Codable {
    case authorized
    case revoked
    case notFound
    case transferred
}

/// Why a lifecycle event or native call cannot be carried out.
public struct LifecycleRefusal: Error, Sendable, Equatable {
    /// Whether something named does not exist, or exists but the event does not apply to it.
    public enum Kind: Sendable, Equatable {
        case notFound
        case notApplicable
    }

    public var kind: Kind
    public var message: String
}

/// Account lifecycle on the session: credential states, account deletion and relay forwarding.
extension SessionState {
    /// The credential state of a user for an app group.
    public func credentialState(userKey: String, appGroupId: String) -> CredentialState {
        if deletedUsers.contains(userKey) { return .revoked }
        guard let consent = consent(userKey: userKey, appGroupId: appGroupId) else { return .notFound }
        return consent.status == .authorized ? .authorized : .revoked
    }

    /// Whether the user's Apple Account was deleted.
    public func isDeleted(_ userKey: String) -> Bool {
        deletedUsers.contains(userKey)
    }

    /// Whether relay mail for the user and group is forwarded.
    public func relayForwarding(userKey: String, appGroupId: String) -> Bool {
        !relayForwardingOff.contains(Self.consentKey(userKey, appGroupId)) && !deletedUsers.contains(userKey)
    }

    /// Deletes the user's Apple Account: every consent ends (so every token of every team dies) and
    /// relay forwarding stops. Returns the app groups whose consent stood, which Apple notifies.
    public mutating func deleteAccount(userKey: String, now: Date) throws(LifecycleRefusal) -> [String] {
        guard !deletedUsers.contains(userKey) else {
            throw LifecycleRefusal(
                kind: .notApplicable, message: "the Apple Account of user \(userKey) is already deleted")
        }
        let standing = consents.values.filter { $0.userKey == userKey && $0.status == .authorized }.map(\.appGroupId)
            .sorted()
        for appGroupId in standing { revokeConsent(userKey: userKey, appGroupId: appGroupId, now: now) }
        deletedUsers.insert(userKey)
        return standing
    }

    /// Ends a standing consent because the user stopped using Sign in with Apple with the app.
    public mutating func userRevokes(userKey: String, appGroupId: String, now: Date) throws(LifecycleRefusal) {
        guard revokeConsent(userKey: userKey, appGroupId: appGroupId, now: now) else {
            throw LifecycleRefusal(
                kind: .notApplicable,
                message: "user \(userKey) has no standing authorization for app group \(appGroupId)")
        }
    }

    /// Turns relay forwarding off or on; only for a user who hides their email from the group.
    public mutating func setRelayForwarding(userKey: String, appGroupId: String, enabled: Bool) throws(LifecycleRefusal)
    {
        guard let consent = consent(userKey: userKey, appGroupId: appGroupId), consent.status == .authorized else {
            throw LifecycleRefusal(
                kind: .notApplicable,
                message: "user \(userKey) has no standing authorization for app group \(appGroupId)")
        }
        guard consent.grantsEmail && consent.hidesEmail else {
            throw LifecycleRefusal(
                kind: .notApplicable,
                message:
                    "user \(userKey) shares a real email (or no email) with app group \(appGroupId); relay forwarding applies only to Hide My Email"
            )
        }
        let key = Self.consentKey(userKey, appGroupId)
        guard relayForwardingOff.contains(key) == enabled else {
            throw LifecycleRefusal(
                kind: .notApplicable,
                message:
                    "relay forwarding is already \(enabled ? "on" : "off") for user \(userKey) and app group \(appGroupId)"
            )
        }
        if enabled { relayForwardingOff.remove(key) } else { relayForwardingOff.insert(key) }
    }
}
