import Crypto
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The scenarios the mock can serve: those loaded from the scenarios folder at start-up, and those
/// uploaded over HTTP (kept in the store, parsed here once per text). Each is checked against the
/// signing keys; the client-secret verifier of each is built once.
package final class ScenarioCatalog: Sendable {
    /// The scenarios of the folder, by name.
    let bundled: [String: Scenario]
    /// The signing keys scenarios may name.
    let keyRing: SigningKeyRing
    /// Uploads parsed and checked, by the digest of their text (re-parsed on use past the bound).
    private let parsed = BoundedCache<String, Scenario>(capacity: 2 * uploadCapacity)
    /// Client-secret verifiers, by upload digest or `bundled:<name>`.
    private let verifiers: BoundedCache<String, ClientSecretVerifier>

    init(bundled: [String: Scenario], keyRing: SigningKeyRing) throws(ScenarioError) {
        for scenario in bundled.values.sorted(by: { $0.name < $1.name }) {
            try Self.check(scenario, against: keyRing)
        }
        self.bundled = bundled
        self.keyRing = keyRing
        verifiers = BoundedCache(capacity: 2 * Self.uploadCapacity + bundled.count)
    }

    /// Loads and checks every scenario of `directory` against the signing keys of `keysDirectory`;
    /// returns their names, or throws every problem found (the `validate` command).
    package static func validate(directory: String, keysDirectory: String?) throws(ScenarioError) -> [String] {
        let scenarios = try ScenarioLoader.loadDirectory(directory)
        // Without keys, each file is still read and checked whole; only signing key ids go unchecked.
        guard let keysDirectory else { return scenarios.keys.sorted() }
        let catalog = try ScenarioCatalog(
            bundled: scenarios, keyRing: try SigningKeyRing.load(keysDirectory: keysDirectory))
        return catalog.bundled.keys.sorted()
    }

    /// An uploaded scenario's text parsed and checked (cached by its digest).
    func parse(_ upload: UploadedScenario, name: String) throws(ScenarioError) -> Scenario {
        try parse(upload, name: name, digest: Self.digest(upload.json))
    }

    private func parse(_ upload: UploadedScenario, name: String, digest: String) throws(ScenarioError) -> Scenario {
        if let cached = parsed[digest], cached.name == name { return cached }
        let scenario = try ScenarioLoader.loadData(Data(upload.json.utf8), name: name)
        try Self.check(scenario, against: keyRing)
        parsed.insert(scenario, for: digest)
        return scenario
    }

    /// The scenario `name`, as uploaded (`upload`, parsed and hashed once per text) or else as
    /// bundled, with the client-secret verifier of its developer keys (built once per scenario
    /// text); `nil` when it is neither.
    func scenario(named name: String, upload: UploadedScenario?) async throws(ScenarioError) -> (
        Scenario, ClientSecretVerifier
    )? {
        let scenario: Scenario
        let key: String
        if let upload {
            key = Self.digest(upload.json)
            scenario = try parse(upload, name: name, digest: key)
        } else if let bundled = bundled[name] {
            (scenario, key) = (bundled, "bundled:\(name)")
        } else {
            return nil
        }
        if let cached = verifiers[key] { return (scenario, cached) }
        let verifier = await ClientSecretVerifier(scenario: scenario)
        verifiers.insert(verifier, for: key)
        return (scenario, verifier)
    }

    /// Refuses a scenario that names a signing key the server does not have.
    static func check(_ scenario: Scenario, against keyRing: SigningKeyRing) throws(ScenarioError) {
        if let kid = scenario.settings.signingKeyId, keyRing.key(kid) == nil {
            throw ScenarioError(
                file: scenario.source, path: "$.settings.signingKeyId",
                reason: "no signing key \"\(kid)\"; keys: \(keyRing.keys.map(\.kid).joined(separator: ", "))")
        }
    }

    private static func digest(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).lowercaseHex
    }

    /// The most scenarios that can be uploaded (replacing one by name does not count).
    static let uploadCapacity = 100

    /// Why `name` cannot name an uploaded scenario, or `nil`: 1 to 64 ASCII letters, digits, `.`,
    /// `_` and `-`, and not `.` or `..`.
    static func nameProblem(_ name: String) -> String? {
        guard name.utf8.count <= 64, ScenarioDecoder.isPlainName(name), name != ".", name != ".." else {
            return
                "name the scenario: POST /__admin/scenarios?name=<1 to 64 ASCII letters, digits, . _ -> (not . or ..)"
        }
        return nil
    }
}
