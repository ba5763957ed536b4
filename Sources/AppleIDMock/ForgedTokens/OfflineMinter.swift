#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Mints identity tokens without a server (`apple-id-mock mint id-token`): a scenario from the
/// scenarios folder and the bundled keys, nothing stored. The tokens are those the server would mint
/// on that scenario with no control-plane changes.
package struct OfflineMinter: Sendable {
    let world: World
    let keys: ResolvedKeys

    /// Loads `scenario` from `scenariosDirectory` and the keys of `keysDirectory`, with every problem.
    package init(scenariosDirectory: String, keysDirectory: String, scenario name: String) throws {
        let ring = try SigningKeyRing.load(keysDirectory: keysDirectory)
        let scenarios = try ScenarioLoader.loadDirectory(scenariosDirectory)
        guard let scenario = scenarios[name] else {
            throw ScenarioError(
                file: scenariosDirectory,
                reason: "no scenario \"\(name)\"; available: \(scenarios.keys.sorted().joined(separator: ", "))")
        }
        try ScenarioCatalog.check(scenario, against: ring)
        world = World(scenario: scenario)
        keys = ResolvedKeys.bundled(ring, roster: KeyRoster.bundled(ring, settings: scenario.settings))
    }

    /// One token to `order` at `now`, as for a user who has not consented before.
    package func mint(_ order: IdentityTokenOrder, now: Date = Date()) throws -> MintedToken {
        try IdentityTokenMint.mint(order, world: world, keys: keys, consent: nil, now: now)
    }
}
