import Foundation

/// The scenario in force, with what is derived from it once (lookups, client-secret keys).
public struct ActiveScenario: Sendable {
    /// The resolved world.
    public let world: World
    /// Checks client secrets against the world's developer keys.
    public let secrets: ClientSecretVerifier
}

/// Owns the mock's mutable state: the loaded scenarios, the active one, and the session state
/// (consents, codes, tokens). Switching scenario replaces the world and clears the session at once.
public actor MockRuntime {
    private var scenarios: [String: Scenario]
    private var active: ActiveScenario
    private var session = SessionState()
    private let keyRing: SigningKeyRing

    /// Starts with `activeName` from `scenarios`; every scenario is checked against the signing keys.
    public init(scenarios: [String: Scenario], activeName: String, keyRing: SigningKeyRing) async throws(ScenarioError)
    {
        for scenario in scenarios.values.sorted(by: { $0.name < $1.name }) {
            try Self.check(scenario, against: keyRing)
        }
        guard let scenario = scenarios[activeName] else {
            throw ScenarioError(
                file: activeName,
                reason:
                    "no scenario named \"\(activeName)\"; available: \(scenarios.keys.sorted().joined(separator: ", "))"
            )
        }
        self.scenarios = scenarios
        self.keyRing = keyRing
        self.active = ActiveScenario(
            world: World(scenario: scenario), secrets: await ClientSecretVerifier(scenario: scenario))
    }

    /// The scenario in force.
    public var current: ActiveScenario { active }

    /// The names of all loaded scenarios.
    public var scenarioNames: [String] { scenarios.keys.sorted() }

    /// Makes `name` the active scenario and clears all consents, codes and tokens.
    public func activate(_ name: String) async throws(ScenarioError) {
        guard let scenario = scenarios[name] else {
            throw ScenarioError(
                file: "request body", path: "$.name",
                reason: "no scenario named \"\(name)\"; available: \(scenarios.keys.sorted().joined(separator: ", "))")
        }
        active = ActiveScenario(
            world: World(scenario: scenario), secrets: await ClientSecretVerifier(scenario: scenario))
        session = SessionState()
    }

    /// Adds (or replaces) a scenario sent over HTTP, after the same checks as at start-up.
    public func install(_ scenario: Scenario) throws(ScenarioError) {
        try Self.check(scenario, against: keyRing)
        scenarios[scenario.name] = scenario
    }

    /// Replaces the active scenario's settings (the session is kept).
    public func updateSettings(_ settings: MockSettings) async throws(ScenarioError) {
        var scenario = active.world.scenario
        scenario.settings = settings
        try Self.check(scenario, against: keyRing)
        active = ActiveScenario(world: World(scenario: scenario), secrets: active.secrets)
    }

    /// Clears consents, codes and tokens, keeping the scenario.
    public func resetSession() {
        session = SessionState()
    }

    /// Runs `body` on the world and the session as one step, so no other request interleaves.
    public func withSession<T: Sendable>(_ body: @Sendable (World, inout SessionState) throws -> T) rethrows -> T {
        try body(active.world, &session)
    }

    private static func check(_ scenario: Scenario, against keyRing: SigningKeyRing) throws(ScenarioError) {
        if let kid = scenario.settings.signingKeyId, keyRing.key(kid) == nil {
            throw ScenarioError(
                file: scenario.source, path: "$.settings.signingKeyId",
                reason: "no signing key \"\(kid)\"; keys: \(keyRing.keys.map(\.kid).joined(separator: ", "))")
        }
    }
}
