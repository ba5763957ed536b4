import Foundation

/// An account lifecycle event Apple tells developers about (reference §9).
public struct LifecycleEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// The user stopped using Sign in with Apple with the app group.
        case consentRevoked = "consent-revoked"
        /// The user deleted their Apple Account (the notification's type follows `notificationDeleteType`).
        case accountDelete = "account-delete"
        /// The user turned relay forwarding off for the app group.
        case emailDisabled = "email-disabled"
        /// The user turned relay forwarding back on.
        case emailEnabled = "email-enabled"

        /// The `type` written in the notification (deletion follows `notificationDeleteType`).
        public func notificationType(_ settings: MockSettings) -> String {
            self == .accountDelete ? settings.notificationDeleteType.rawValue : rawValue
        }

        /// Whether the event concerns one app group (all but account deletion).
        public var needsAppGroup: Bool { self != .accountDelete }
    }

    public var kind: Kind
    /// The user's key in the scenario.
    public var userKey: String
    /// The app group, for every kind but account deletion.
    public var appGroupId: String?
}

/// A notification to send, before it is signed: which group, which user id, what happened.
public struct NotificationDraft: Sendable, Equatable {
    public var appGroupId: String
    public var kind: LifecycleEvent.Kind
    public var sub: String
    /// The relay address, for relay forwarding events.
    public var email: String?
    public var eventTime: Date
}
