import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Codes armed by the `exchange` path: when the backend exchanges one at `/auth/token`, the token
/// endpoint answers with the case's id_token instead of Apple's (or with Apple's `invalid_grant`
/// for `xch-error`). Checked on every code exchange at the cost of one atomic load while no run is
/// under way. Held by the process that drives the run: the backend's exchange must reach it.
final class ConformanceArms: Sendable {
    /// What an armed code turns into.
    struct Arm: Sendable {
        var testCase: ConformanceCase
        var variant: String
        var keys: ConformanceTokens.Keys
        var context: ConformanceTokens.Context
    }

    private let arms = Mutex<[String: Arm]>([:])
    private let count = Atomic<Int>(0)

    init() {}

    /// Arms `code`.
    func arm(_ code: String, _ arm: Arm) {
        arms.withLock { arms in
            arms[code] = arm
            count.store(arms.count, ordering: .releasing)
        }
    }

    /// Disarms `code`.
    func disarm(_ code: String) {
        arms.withLock { arms in
            arms[code] = nil
            count.store(arms.count, ordering: .releasing)
        }
    }

    /// The arm of `code`, if it is armed.
    func arm(of code: String) -> Arm? {
        guard count.load(ordering: .acquiring) > 0 else { return nil }
        return arms.withLock { $0[code] }
    }

    /// The id_token the token endpoint answers for an armed code, from the one it issued.
    static func idToken(replacing issued: String, for arm: Arm) throws -> String {
        let segments = issued.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let data = Data(base64URLEncoded: segments[1]),
            case .object(let claims) = try JSONValue.parse(data)
        else { return issued }
        return try ConformanceTokens.token(
            arm.testCase, variant: arm.variant, issued: claims, keys: arm.keys, context: arm.context)
    }
}
