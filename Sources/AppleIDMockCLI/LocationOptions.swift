import AppleIDMock
import ArgumentParser

/// The options every subcommand shares: where scenarios and keys live and which scenario is active.
struct LocationOptions: ParsableArguments {
    @Option(name: .customLong("scenarios-dir"), help: ArgumentHelp(ServeOptions.scenariosDir.help))
    var scenariosDir: String?

    @Option(name: .customLong("keys-dir"), help: ArgumentHelp(ServeOptions.keysDir.help))
    var keysDir: String?

    @Option(help: ArgumentHelp(ServeOptions.scenario.help))
    var scenario: String?

    var resolvedScenariosDir: String {
        scenariosDir ?? EnvironmentDefaults.value(EnvironmentDefaults.scenariosDir)
            ?? ServerConfiguration.Defaults.scenariosDirectory
    }
    var resolvedKeysDir: String {
        keysDir ?? EnvironmentDefaults.value(EnvironmentDefaults.keysDir) ?? ServerConfiguration.Defaults.keysDirectory
    }
    var resolvedScenario: String {
        scenario ?? EnvironmentDefaults.value(EnvironmentDefaults.scenario) ?? ServerConfiguration.Defaults.scenario
    }
}
