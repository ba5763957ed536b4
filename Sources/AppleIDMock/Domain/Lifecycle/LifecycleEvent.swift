#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An account lifecycle event Apple tells developers about (reference §9).
struct LifecycleEvent: Sendable, Equatable {
    /// What happened.
    enum Kind: String, Sendable, Codable, CaseIterable {
        /// The user stopped using Sign in with Apple with the app group.
        case consentRevoked = "consent-revoked"
        /// The user deleted their Apple Account (the notification's type follows `notificationDeleteType`).
        case accountDelete = "account-delete"
        /// The user turned relay forwarding off for the app group.
        case emailDisabled = "email-disabled"
        /// The user turned relay forwarding back on.
        case emailEnabled = "email-enabled"

        /// The `type` written in the notification (deletion follows `notificationDeleteType`).
        func notificationType(_ settings: MockSettings) -> String {
            self == .accountDelete ? settings.notificationDeleteType.rawValue : rawValue
        }

        /// Whether the event concerns one app group (all but account deletion).
        var needsAppGroup: Bool { self != .accountDelete }
    }

    var kind: Kind
    /// The user's key in the scenario.
    var userKey: String
    /// The app group, for every kind but account deletion.
    var appGroupId: String?
}

/// A notification to send, before it is signed: which group, which user id, what happened.
struct NotificationDraft: Sendable, Equatable {
    var appGroupId: String
    var kind: LifecycleEvent.Kind
    var sub: String
    /// The relay address, for relay forwarding events.
    var email: String?
    var eventTime: Date
}
