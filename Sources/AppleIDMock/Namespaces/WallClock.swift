#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The wall clock the namespaces keep their records by (when one was made, last used, its records
/// read): the system's, or one a test moves, so idle expiry and record freshness are tested
/// without sleeping. Not the mock's clock, which the control plane moves per namespace.
struct WallClock: Sendable {
    /// The current instant.
    let now: @Sendable () -> Date

    /// The system's clock.
    static let system = WallClock { Date() }
}
