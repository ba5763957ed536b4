import AppleIDMock
import ArgumentParser
import Foundation

/// `apple-id-mock mint`: tokens made to order, offline.
struct MintCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mint", abstract: "Mint tokens offline (no server).", subcommands: [MintIdTokenCommand.self])
}

/// `apple-id-mock mint id-token --user alice --client-id com.example.web [--defect expired]`: prints
/// identity tokens as the server would issue them, valid or with one defect a backend must reject.
struct MintIdTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "id-token", abstract: "Print identity tokens (one per line, or JSON with --json).")

    @Option(help: "The user's key in the scenario")
    var user: String

    @Option(name: .customLong("client-id"), help: "The client (Services ID, or bundle ID for --flow native)")
    var clientId: String

    @Option(help: "web (code exchange), native (an app's credential) or refresh")
    var flow: String = "web"

    @Option(help: "The nonce of the sign-in (echoed verbatim)")
    var nonce: String?

    @Option(
        help: ArgumentHelp(
            "One defect: \(IdentityTokenOrder.Defect.allCases.map(\.rawValue).joined(separator: ", "))"))
    var defect: String?

    @Option(name: .customLong("set"), help: "Set a claim: NAME=VALUE (VALUE as JSON if it parses, else a string)")
    var setClaims: [String] = []

    @Option(name: .customLong("remove"), help: "Leave a claim out")
    var removeClaims: [String] = []

    @Option(help: "How many tokens (minted on every core)")
    var count: Int = 1

    @Flag(help: "Print each token with its header and claims as JSON")
    var json = false

    @Flag(help: "Print only the rate (tokens per second) to standard error, not the tokens")
    var quiet = false

    @OptionGroup var locations: LocationOptions

    func run() async throws {
        guard (1...10_000_000).contains(count) else { throw ValidationError("--count must be 1...10000000") }
        let order = try makeOrder()
        try locations.requireFolders()
        let minter: OfflineMinter
        do {
            minter = try OfflineMinter(
                scenariosDirectory: locations.resolvedScenariosDir, keysDirectory: locations.resolvedKeysDir,
                scenario: locations.resolvedScenario)
            _ = try minter.mint(order)  // refuses an unknown user or client before the run
        } catch let error as ScenarioError {
            FileHandle.standardError.write(Data("\(error.description)\n".utf8))
            throw ExitCode(1)
        } catch let refusal as ControlRefusal {
            FileHandle.standardError.write(Data("apple-id-mock: \(refusal.message)\n".utf8))
            throw ExitCode(1)
        }
        let started = ContinuousClock.now
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, count))
        let printJSON = json
        let quiet = quiet
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                let share = count / workers + (worker < count % workers ? 1 : 0)
                group.addTask {
                    var lines = ""
                    for _ in 0..<share {
                        let minted = try minter.mint(order)
                        guard !quiet else { continue }
                        lines += printJSON ? try Self.jsonLine(minted) : minted.token
                        lines += "\n"
                        if lines.utf8.count > 1 << 16 {
                            FileHandle.standardOutput.write(Data(lines.utf8))
                            lines = ""
                        }
                    }
                    if !lines.isEmpty { FileHandle.standardOutput.write(Data(lines.utf8)) }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = (ContinuousClock.now - started).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        if quiet || count > 1 {
            let rate = Double(count) / max(seconds, 1e-9)
            FileHandle.standardError.write(
                Data(
                    "minted \(count) tokens on \(workers) cores in \(String(format: "%.3f", seconds)) s: \(Int(rate)) tokens/s\n"
                        .utf8))
        }
    }

    private func makeOrder() throws -> IdentityTokenOrder {
        var order = IdentityTokenOrder(userKey: user, clientId: clientId)
        guard let flow = IdentityTokenOrder.Flow(rawValue: flow) else {
            throw ValidationError(
                "--flow must be one of \(IdentityTokenOrder.Flow.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        order.flow = flow
        order.nonce = nonce
        if let defect {
            guard let parsed = IdentityTokenOrder.Defect(rawValue: defect) else {
                throw ValidationError(
                    "--defect must be one of \(IdentityTokenOrder.Defect.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            order.defect = parsed
        }
        for claim in setClaims {
            let parts = claim.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw ValidationError("--set takes NAME=VALUE, found \(claim)")
            }
            let text = String(parts[1])
            order.set[String(parts[0])] = (try? JSONValue.parse(Data(text.utf8))) ?? .string(text)
        }
        order.remove = removeClaims
        return order
    }

    /// One encoder for every `--json` line.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private static func jsonLine(_ minted: MintedToken) throws -> String {
        String(decoding: try encoder.encode(minted), as: UTF8.self)
    }
}
