import Foundation

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
        var body: [String: JSONText] = ["type": .string(event.rawValue), "user": .string(user)]
        if let appGroup { body["appGroup"] = .string(appGroup) }
        return try await call(.post, "/__admin/events", json: JSONText.object(body), as: FiredEvent.self)
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
        Date(timeIntervalSince1970: try await call(.get, "/__admin/clock", as: ClockView.self).now)
    }

    /// Moves the mock's clock by `duration` (negative: back), in whole seconds as the mock counts
    /// time (a fraction throws). Expiry follows: codes, tokens, client secrets, scheduled events,
    /// key grace periods.
    public func advanceClock(by duration: Duration) async throws {
        let body = JSONText.object(["advanceSeconds": .integer(try Self.wholeSeconds(duration, "advanceClock(by:)"))])
        _ = try await call(.post, "/__admin/clock", json: body, as: ClockView.self)
    }

    /// Sets the mock's clock to `instant` (whole seconds).
    public func setClock(to instant: Date) async throws {
        let body = JSONText.object(["now": .integer(Int(instant.timeIntervalSince1970.rounded(.down)))])
        _ = try await call(.post, "/__admin/clock", json: body, as: ClockView.self)
    }

    /// Forgets consents, codes, tokens, events and notifications, as at start (`POST /__admin/reset`).
    public func reset() async throws {
        _ = try await send(.post, "/__admin/reset")
    }
}

extension MockAppleID {
    /// Uploads a scenario (the JSON of a scenario file: your teams, apps, users, notification URLs)
    /// as `name` and makes it the active one, after the same checks as at start-up; a problem
    /// throws `MockAppleIDError.unexpectedAnswer` naming each field and why.
    public func useScenario(json: String, named name: String = "test") async throws {
        let path = "/__admin/scenarios?" + FormEncoding.encode([("name", name), ("activate", "true")])
        let answer = try await send(.post, path, body: .json(json))
        guard answer.status == 200 else {
            throw MockAppleIDError.unexpectedAnswer(path: path, status: answer.status, body: answer.body)
        }
    }

    /// Makes the scenario `name` (bundled or uploaded) the active one, resetting the session.
    public func useScenario(named name: String) async throws {
        let answer = try await send(.put, "/__admin/scenario", body: .json(JSONText.object(["name": .string(name)])))
        guard answer.status == 200 else {
            throw MockAppleIDError.unexpectedAnswer(path: "/__admin/scenario", status: answer.status, body: answer.body)
        }
    }
}
