import AppleIDMock

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MockAppleID {
    /// A change on the user's side that Apple tells the app group's backend about.
    public enum LifecycleEvent: String, Sendable, CaseIterable {
        /// The user stopped using Sign in with Apple with the app (`consent-revoked`).
        case consentRevoked = "consent-revoked"
        /// The user deleted their Apple Account (`account-delete`; every app group).
        case accountDeleted = "account-delete"
        /// The user turned off forwarding to their private relay address (`email-disabled`).
        case emailDisabled = "email-disabled"
        /// The user turned forwarding back on (`email-enabled`).
        case emailEnabled = "email-enabled"
    }

    /// What a triggered event did.
    public struct FiredEvent: Sendable, Decodable {
        /// The event's id in the event log.
        public var id: String
        /// `applied`, or why nothing changed.
        public var outcome: String
        /// The notifications queued for delivery (one per app group told).
        public var notificationIds: [String]
    }

    /// Applies `event` for `user` now (and queues its server-to-server notifications). `appGroup` (an
    /// app group id or one of its client ids) is needed for all but `accountDeleted`.
    @discardableResult
    public func trigger(_ event: LifecycleEvent, user: String, appGroup: String? = nil) async throws -> FiredEvent {
        struct Order: Encodable {
            var type: String
            var user: String
            var appGroup: String?
        }
        let order = Order(type: event.rawValue, user: user, appGroup: appGroup)
        return try await call(.post, AdminPath.absolute(AdminPath.events), json: order, as: FiredEvent.self)
    }

    /// `duration` in seconds, refusing a fraction the mock would drop.
    static func wholeSeconds(_ duration: Duration, _ helper: String) throws -> Int {
        guard duration.components.attoseconds == 0 else {
            throw MockAppleIDError.invalidArgument("\(helper) takes whole seconds, not \(duration)")
        }
        return Int(duration.components.seconds)
    }

    /// The mock's clock as the control plane reports it.
    struct ClockView: Decodable {
        var now: Double
    }

    /// The mock's current instant (what `iat`, `exp` and code expiry are measured against).
    public func now() async throws -> Date {
        Date(timeIntervalSince1970: try await call(.get, AdminPath.absolute(AdminPath.clock), as: ClockView.self).now)
    }

    /// Moves the mock's clock by `duration` (negative: back), in whole seconds as the mock counts
    /// time (a fraction throws). Expiry follows: codes, tokens, client secrets, scheduled events,
    /// key grace periods.
    public func advanceClock(by duration: Duration) async throws {
        let seconds = try Self.wholeSeconds(duration, "advanceClock(by:)")
        _ = try await call(
            .post, AdminPath.absolute(AdminPath.clock), json: ["advanceSeconds": seconds], as: ClockView.self)
    }

    /// Sets the mock's clock to `instant` (whole seconds).
    public func setClock(to instant: Date) async throws {
        let seconds = Int(instant.timeIntervalSince1970.rounded(.down))
        _ = try await call(.post, AdminPath.absolute(AdminPath.clock), json: ["now": seconds], as: ClockView.self)
    }

    /// Forgets consents, codes, tokens, events and notifications, as at start (`POST /__admin/reset`).
    public func reset() async throws {
        try await succeeding(.post, AdminPath.absolute(AdminPath.reset))
    }
}

extension MockAppleID {
    /// Uploads a scenario (the JSON of a scenario file: your teams, apps, users, notification URLs)
    /// as `name` and makes it the active one, after the same checks as at start-up; a problem
    /// throws `MockAppleIDError.unexpectedAnswer` naming each field and why.
    public func useScenario(json: String, named name: String = "test") async throws {
        let path =
            AdminPath.absolute(AdminPath.scenarios) + "?"
            + FormParameters.encode([("name", name), ("activate", "true")])
        try await succeeding(.post, path, body: .json(json))
    }

    /// Makes the scenario `name` (bundled or uploaded) the active one, resetting the session.
    public func useScenario(named name: String) async throws {
        let text = String(decoding: try JSONEncoder().encode(["name": name]), as: UTF8.self)
        try await succeeding(.put, AdminPath.absolute(AdminPath.scenario), body: .json(text))
    }
}
