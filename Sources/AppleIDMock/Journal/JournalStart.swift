#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// When a journaled call or attempt began, on the two clocks its entry needs: the wall clock (its
/// id and `wallTime`, which sort entries across replicas) and a monotonic one (its latency).
struct JournalStart: Sendable {
    let wallTime: Date
    let instant: ContinuousClock.Instant

    /// Now.
    init() {
        wallTime = Date()
        instant = .now
    }

    /// Milliseconds since the start.
    var elapsedMilliseconds: Int { (ContinuousClock.now - instant).wholeMilliseconds }
}
