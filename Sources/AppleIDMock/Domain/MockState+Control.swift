#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The control plane's steps on the state: scenarios, settings, the clock and transfers.
extension MockState {
    // MARK: - Scenarios and settings

    /// The names of every scenario: the folder's and the uploaded ones.
    func scenarioNames() async throws -> [String] {
        let uploaded = try await store.transaction { try await $0.list(Spaces.uploadedScenarios).map(\.key) }
        return Set(catalog.bundled.keys).union(uploaded).sorted()
    }

    /// Makes `name` the active scenario: consents, codes, tokens, events and notifications are cleared
    /// and its schedule armed, in one step.
    func activate(_ name: String) async throws {
        try await changeControl { control, _, transaction in
            try await Self.switchScenario(
                to: name, control: &control, catalog: self.catalog, in: transaction, at: "$.name")
        }
    }

    /// Refuses `name` unless it is a scenario of the folder or an uploaded one (in the step of
    /// `transaction`): what every scenario switch checks; `path` names the field in the refusal.
    static func requireScenario(
        _ name: String, catalog: ScenarioCatalog, in transaction: any StateTransaction, at path: String
    ) async throws {
        let uploaded = try await transaction.get(Spaces.uploadedScenarios, name) != nil
        guard !uploaded, catalog.bundled[name] == nil else { return }
        let names = Set(catalog.bundled.keys).union(try await transaction.list(Spaces.uploadedScenarios).map(\.key))
        throw ControlRefusal.invalidBody(
            "no scenario named \"\(name)\"; available: \(names.sorted().joined(separator: ", "))", at: path)
    }

    /// Switches `control` to the scenario `name` in the step of `transaction`: consents, codes,
    /// tokens, events and notifications are cleared and its schedule armed (the control plane's
    /// switch, and a namespace's `PUT` with another scenario).
    static func switchScenario(
        to name: String, control: inout ControlState, catalog: ScenarioCatalog, in transaction: any StateTransaction,
        at path: String
    ) async throws {
        try await requireScenario(name, catalog: catalog, in: transaction, at: path)
        try await transaction.clear(Spaces.session)
        control = control.switched(to: name)
    }

    /// Adds (or replaces) a scenario sent over HTTP, after the same checks as at start-up, and makes
    /// it active when asked. The active scenario is replaced only together with activating it.
    func install(json: String, name: String, activate: Bool) async throws {
        _ = try catalog.parse(UploadedScenario(json: json), name: name)
        try await changeControl { control, _, transaction in
            if control.scenario == name && !activate {
                throw ControlRefusal.notApplicable(
                    "scenario \"\(name)\" is active; replace it with ?activate=true (which resets the session)")
            }
            if try await transaction.get(Spaces.uploadedScenarios, name) == nil {
                let count = try await transaction.list(Spaces.uploadedScenarios).count
                if count >= ScenarioCatalog.uploadCapacity {
                    throw ControlRefusal.limitReached(
                        "at most \(ScenarioCatalog.uploadCapacity) uploaded scenarios; replace one by name",
                        limit: ScenarioCatalog.uploadCapacity)
                }
            }
            try await transaction.put(Spaces.uploadedScenarios, name, UploadedScenario(json: json))
            if activate {
                // Stored above, so the switch's check that the scenario exists passes.
                try await Self.switchScenario(
                    to: name, control: &control, catalog: self.catalog, in: transaction, at: "$.name")
            }
        }
    }

    /// Applies a JSON patch to the active scenario's settings in one step (the session is kept).
    func patchSettings(_ patch: JSONValue) async throws -> MockSettings {
        return try await changeControl { control, active, _ in
            var reader = JSONReader()
            let settings = active.world.settings.applying(patch, at: .root, reader: &reader)
            // The kids the keys listing shows: in a namespace, its own names for the bundled keys.
            let kids = (control.keys ?? self.defaultRoster(settings: active.world.settings)).entries.map(\.kid)
            if let kid = settings.signingKeyId, !kids.contains(kid) {
                reader.report(
                    .root.member("signingKeyId"),
                    "no signing key \"\(kid)\"; keys: \(kids.joined(separator: ", "))")
            }
            try reader.refuseBodyIfInvalid()
            if case .object(let members) = patch {
                control.settingsPatch.merge(members) { _, new in new }
                // Once the control plane changed the keys, the roster decides; a patch still picks the signer.
                if case .string(let kid) = members["signingKeyId"] { control.keys?.signingKid = kid }
            }
            return settings
        }
    }

    /// Clears consents, codes, tokens, events and notifications and re-arms the scenario's schedule,
    /// in one step; deliveries under way are cut short.
    func reset() async throws {
        try await changeControl { control, _, transaction in
            try await transaction.clear(Spaces.session)
            control = control.reset()
        }
    }

    // MARK: - Clock

    /// What to do with the mock's clock.
    enum ClockChange: Sendable {
        case advance(seconds: Double)
        case set(Date)
        /// Back to the base clock, running.
        case reset
        /// Stands still at the instant it shows now (`true`), or runs on from where it stands (`false`).
        case freeze(Bool)
    }

    /// Moves the mock's clock for every replica; false (and no change) if it would leave
    /// `MockClock.validRange`. Scheduled events that became due fire at once. A frozen clock stays
    /// frozen when moved, at the new instant.
    func moveClock(_ change: ClockChange) async throws -> Bool {
        let base = clock.now()
        let moved = try await changeControl { control, _, _ in
            let now = control.now(base: base)
            var target: Date
            var frozen = control.frozenAt != nil
            switch change {
            case .advance(let seconds): target = now.addingTimeInterval(seconds)
            case .set(let instant): target = instant
            case .reset:
                target = base
                frozen = false
            case .freeze(let freeze):
                target = now
                frozen = freeze
            }
            guard target.timeIntervalSince1970.isFinite, MockClock.validRange.contains(target) else { return false }
            control.frozenAt = frozen ? target : nil
            control.clockOffsetSeconds = target.timeIntervalSince(base)
            return true
        }
        if moved { try await fireDueEvents() }
        return moved
    }

    // MARK: - Transfers

    /// Moves an app group to another team now; its migration window opens.
    func startTransfer(appGroupId: String, toTeam: String) async throws -> AppTransfer {
        try await changeControl { control, active, _ in
            try Self.transfer(
                appGroupId: appGroupId, toTeam: toTeam, at: active.now, in: active.world, control: &control)
        }
    }

    static func transfer(
        appGroupId: String, toTeam: String, at instant: Date, in world: World, control: inout ControlState
    ) throws(ControlRefusal) -> AppTransfer {
        let name = world.scenario.name
        guard let group = world.appGroups[appGroupId] else {
            throw ControlRefusal.notFound("no app group \"\(appGroupId)\" in scenario \"\(name)\"")
        }
        guard world.teams[toTeam] != nil else {
            throw ControlRefusal.notFound("no team \"\(toTeam)\" in scenario \"\(name)\"")
        }
        guard world.transfers[appGroupId] == nil else {
            throw ControlRefusal.notApplicable("app group \(appGroupId) was already transferred")
        }
        guard group.teamId != toTeam else {
            throw ControlRefusal.notApplicable("app group \(appGroupId) already belongs to team \(toTeam)")
        }
        let transfer = AppTransfer(appGroupId: appGroupId, fromTeam: group.teamId, toTeam: toTeam, at: instant)
        control.transfers.append(transfer)
        return transfer
    }
}
