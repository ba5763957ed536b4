import AppleIDMock
import ArgumentParser

/// The options every subcommand shares: where scenarios and keys live and which scenario is active.
struct LocationOptions: ParsableArguments {
    @Option(
        name: .customLong("scenarios-dir"),
        help: "Scenario files folder [env APPLE_ID_MOCK_SCENARIOS_DIR, default scenarios]")
    var scenariosDir: String?

    @Option(
        name: .customLong("keys-dir"),
        help: "Keys folder (signing/, developer/) [env APPLE_ID_MOCK_KEYS_DIR, default keys]")
    var keysDir: String?

    @Option(help: "Active scenario name [env APPLE_ID_MOCK_SCENARIO, default default]")
    var scenario: String?

    var resolvedScenariosDir: String {
        scenariosDir ?? EnvironmentDefaults.value(EnvironmentDefaults.scenariosDir) ?? "scenarios"
    }
    var resolvedKeysDir: String { keysDir ?? EnvironmentDefaults.value(EnvironmentDefaults.keysDir) ?? "keys" }
    var resolvedScenario: String { scenario ?? EnvironmentDefaults.value(EnvironmentDefaults.scenario) ?? "default" }
}
