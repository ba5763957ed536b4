import Foundation

/// Mints identity tokens without a server (`apple-id-mock mint id-token`): a scenario from the
/// scenarios folder and the bundled keys, nothing stored. The tokens are those the server would mint
/// on that scenario with no control-plane changes.
public struct OfflineMinter: Sendable {
    let world: World
    let keys: ResolvedKeys

    /// Loads `scenario` from `scenariosDirectory` and the keys of `keysDirectory`, with every problem.
    public init(scenariosDirectory: String, keysDirectory: String, scenario name: String) throws {
        let ring = try SigningKeyRing.load(keysDirectory: keysDirectory)
        let scenarios = try ScenarioLoader.loadDirectory(scenariosDirectory)
        guard let scenario = scenarios[name] else {
            throw ScenarioError(
                file: scenariosDirectory,
                reason: "no scenario \"\(name)\"; available: \(scenarios.keys.sorted().joined(separator: ", "))")
        }
        try ScenarioCatalog.check(scenario, against: ring)
        let signingKid = scenario.settings.signingKeyId.flatMap(ring.key)?.kid ?? ring.keys[0].kid
        let roster = KeyRoster.bundled(ring, signingKid: signingKid)
        world = World(scenario: scenario)
        keys = ResolvedKeys(
            signing: ring.key(signingKid) ?? ring.keys[0],
            entries: roster.entries.compactMap { entry in ring.key(entry.kid).map { (entry, $0) } })
    }

    /// One token to `order` at `now`, as for a user who has not consented before.
    public func mint(_ order: IdentityTokenOrder, now: Date = Date()) throws -> MintedToken {
        try IdentityTokenMint.mint(order, world: world, keys: keys, consent: nil, now: now)
    }
}
