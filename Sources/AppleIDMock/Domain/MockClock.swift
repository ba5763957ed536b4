import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The mock's time: a base clock (the system's, or a fixed instant in tests) plus an offset that the
/// control plane moves, so expiry is tested without sleeping. Every expiry check reads this clock.
public final class MockClock: Sendable {
    private let base: @Sendable () -> Date
    private let offset = Mutex<TimeInterval>(0)

    /// A clock that follows `base` (the system clock by default) plus the offset.
    public init(base: @escaping @Sendable () -> Date = { Date() }) {
        self.base = base
    }

    /// A clock frozen at `instant` that moves only when told to.
    public static func fixed(at instant: Date) -> MockClock {
        MockClock(base: { instant })
    }

    /// The current instant.
    public func now() -> Date {
        base().addingTimeInterval(offset.withLock { $0 })
    }

    /// How far this clock is ahead of its base.
    var offsetSeconds: TimeInterval {
        offset.withLock { $0 }
    }

    /// The instants the clock may show: 1970 through 9999, so every timestamp fits Apple's integer claims.
    static let validRange = Date(timeIntervalSince1970: 0)...Date(timeIntervalSince1970: 253_402_300_799)

    /// Moves time forward (or back, with a negative value); false (and no change) if that leaves `validRange`.
    @discardableResult
    func advance(by seconds: TimeInterval) -> Bool {
        let now = base()
        return offset.withLock { offset in
            guard seconds.isFinite, Self.validRange.contains(now.addingTimeInterval(offset + seconds)) else {
                return false
            }
            offset += seconds
            return true
        }
    }

    /// Jumps to `instant`; false (and no change) if it is outside `validRange`.
    @discardableResult
    func set(to instant: Date) -> Bool {
        guard Self.validRange.contains(instant) else { return false }
        let target = instant.timeIntervalSince(base())
        offset.withLock { $0 = target }
        return true
    }

    /// Returns to the base clock.
    func reset() {
        offset.withLock { $0 = 0 }
    }
}
